use dsh_kit::prelude::*;

/// Echo a value.
#[tool]
async fn echo<T>(value: T) -> T
where
    T: Send,
{
    value
}

fn main() {}
