use dsh_kit::prelude::*;
use std::any::Any;

/// Return anything.
#[tool]
async fn anything() -> Box<dyn Any> {
    Box::new(1)
}

fn main() {}
