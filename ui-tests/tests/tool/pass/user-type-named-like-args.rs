//! A parameter whose type is named like the args struct the tool would
//! generate (`ReadArgs` for `read`): the type is the user's, and the
//! generated struct is reached as `<read as Tool>::Args`.

use dsh_kit::prelude::*;
use dsh_kit::{Exec, Registry, Tool, Validation};

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

/// Read a file, or the default one.
#[tool]
async fn read(args: Option<ReadArgs>) -> String {
    args.map_or_else(|| "default".to_owned(), |args| args.path)
}

/// Read a file, with options.
#[tool(validate = check_read_more)]
async fn read_more(verbose: bool, options: ReadMoreArgs) -> String {
    format!("{verbose} {}", options.path)
}

fn check_read_more(args: &<read_more as Tool>::Args, _: &Exec) -> Validation {
    if args.options.path.is_empty() {
        return Validation::invalid("the path is empty", 1);
    }
    Validation::Ok
}

/// Declared after the tool that takes it.
#[derive(Deserialize, JsonSchema)]
struct ReadMoreArgs {
    path: String,
}

mod types {
    use dsh_kit::prelude::*;

    #[derive(Deserialize, JsonSchema)]
    pub struct ReadAllArgs {
        pub paths: Vec<String>,
    }
}

/// Read several files, named by a path.
#[tool]
async fn read_all(batches: Vec<types::ReadAllArgs>) -> usize {
    batches.iter().map(|batch| batch.paths.len()).sum()
}

#[tokio::main(flavor = "current_thread")]
async fn main() {
    let registry = Registry::new();
    let _read = registry.register::<read>().unwrap();
    let _read_more = registry.register::<read_more>().unwrap();
    let _read_all = registry.register::<read_all>().unwrap();
    let args = json!({ "args": { "path": "a.txt" } });
    assert_eq!(registry.call("read", args).await.text(), "a.txt");
    assert_eq!(registry.call("read", json!({})).await.text(), "default");
    let args = json!({ "verbose": true, "options": { "path": "b.txt" } });
    assert_eq!(registry.call("read_more", args).await.text(), "true b.txt");
    let args = json!({ "verbose": true, "options": { "path": "" } });
    assert!(registry.call("read_more", args).await.is_error());
    let args = json!({ "batches": [{ "paths": ["a", "b"] }, { "paths": ["c"] }] });
    assert_eq!(registry.call("read_all", args).await.text(), "3");
}
