use dsh_kit::prelude::*;

/// Index the repository.
#[tool(task_required, task = false)]
async fn index(path: String) -> String {
    path
}

fn main() {}
