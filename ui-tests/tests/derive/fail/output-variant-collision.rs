use dsh_kit::prelude::*;

#[derive(ToolOutput)]
enum Outcome {
    Done,
    #[serde(rename = "Done")]
    Finished,
}

fn main() {}
