use dsh_kit::prelude::*;

/// A tool named like the locals of the generated code.
#[tool]
async fn args(text: String, exec: &Exec) -> String {
    format!("{text} {}", exec.tool_name())
}

/// A parameter named like its fn.
#[tool]
async fn value(value: String) -> String {
    value
}

#[render]
fn exec(args: &ValueArgs, value: &String) -> Vec<ContentBlock> {
    vec![ContentBlock::text(format!("{} {value}", args.value))]
}

fn main() {}
