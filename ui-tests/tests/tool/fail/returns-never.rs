use dsh_sdk::prelude::*;

/// Never come back.
#[tool]
async fn spin() -> ! {
    loop {}
}

fn main() {}
