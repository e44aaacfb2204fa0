use dsh_sdk::prelude::*;

#[derive(ToolOutput)]
enum Outcome {
    Done,
    #[serde(rename = "Done")]
    Finished,
}

fn main() {}
