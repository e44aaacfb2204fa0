use dsh_kit::prelude::*;

/// Route by rack.
#[tool]
async fn route(
    /// The rack
    #[dsh(header = 7)]
    rack: String,
) -> String {
    rack
}

fn main() {}
