use dsh_kit::prelude::*;

/// Return something serializable.
#[tool]
async fn something() -> impl Serialize {
    1
}

fn main() {}
