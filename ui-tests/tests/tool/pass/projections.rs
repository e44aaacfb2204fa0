use dsh_kit::prelude::*;
use dsh_kit::Registry;

#[derive(Deserialize, JsonSchema)]
struct ReadFileArgs {
    path: String,
}

/// Read a file from disk.
#[tool(read_only, validate = check_path, render = read_text, present = read_card)]
async fn read_file(args: ReadFileArgs) -> String {
    args.path
}

fn check_path(args: &ReadFileArgs, _exec: &Exec) -> Validation {
    if args.path.starts_with('/') {
        Validation::Ok
    } else {
        Validation::invalid("the path must be absolute", 1)
    }
}

#[render]
fn read_text(args: &ReadFileArgs, value: &String) -> Vec<ContentBlock> {
    vec![ContentBlock::text(format!("{}: {value}", args.path))]
}

#[present]
fn read_card(args: &ReadFileArgs, value: &String) -> Card {
    Card::Read(card::ReadCard::new(args.path.clone(), value.clone()))
}

mod views {
    use dsh_kit::prelude::*;

    #[render]
    pub fn count_text(_args: &super::CountArgs, value: &usize) -> Vec<ContentBlock> {
        vec![ContentBlock::text(value.to_string())]
    }
}

/// Count characters, rendered through a path.
#[tool(render = views::count_text)]
async fn count(text: String) -> usize {
    text.chars().count()
}

fn main() {
    let registry = Registry::new();
    let _read_file = registry.register::<read_file>().unwrap();
    let _count = registry.register::<count>().unwrap();
    let args = ReadFileArgs { path: "/a".into() };
    assert_eq!(read_text(&args, &"x".to_owned()), [ContentBlock::text("/a: x")]);
}
