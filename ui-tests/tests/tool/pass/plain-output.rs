use dsh_kit::prelude::*;
use dsh_kit::Registry;

#[derive(Serialize, Deserialize, JsonSchema)]
struct Sum {
    total: i64,
}

/// Add numbers.
#[tool(read_only, concurrency_safe)]
async fn add(numbers: Vec<i64>) -> Sum {
    Sum { total: numbers.iter().sum() }
}

fn main() {
    let registry = Registry::new();
    let _add = registry.register::<add>().unwrap();
}
