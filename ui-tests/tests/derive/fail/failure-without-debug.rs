use dsh_kit::prelude::*;

/// An error type is `Debug`: derive it beside `ToolFailure`.
#[derive(ToolFailure)]
enum SendError {
    #[error("the mailbox is full")]
    Full,
}

fn main() {}
