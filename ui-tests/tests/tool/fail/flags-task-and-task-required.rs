use dsh_kit::prelude::*;

/// Index the repository.
#[tool(task, task_required)]
async fn index(path: String) -> String {
    path
}

fn main() {}
