use dsh_kit::prelude::*;

/// Never come back.
#[tool]
async fn spin() -> ! {
    loop {}
}

fn main() {}
