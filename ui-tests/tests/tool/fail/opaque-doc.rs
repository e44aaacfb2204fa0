use dsh_sdk::prelude::*;

#[doc = concat!("Read ", "a file.")]
#[tool]
async fn read_file(path: String) -> String {
    path
}

fn main() {}
