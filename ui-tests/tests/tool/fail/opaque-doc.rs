use dsh_kit::prelude::*;

#[doc = concat!("Read ", "a file.")]
#[tool]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
