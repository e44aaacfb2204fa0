use dsh_kit::prelude::*;

/// Not read: `description` wins.
#[tool(
    name = "read-file",
    description = "Read a file from disk.",
    title = "Read file",
    aliases = ["cat", "read"],
    icons = ["https://example.com/read.svg", "data:image/png;base64,iVBORw0KGgo="],
    read_only,
    concurrency_safe = true,
    destructive = false,
    idempotent,
    open_world = false,
    requires_approval,
    defer,
    always_load,
    scopes = ["files:read", "https://api.example.com/files.read"],
    category = "filesystem",
    output_type = "file_content",
    max_result_chars = 30_000,
    timeout_ms = 5000,
    present_call = reading,
)]
async fn read_file(path: String) -> String {
    path
}

#[present]
fn reading(args: &ReadFileArgs) -> Card {
    Card::from(card::ReadCard::new(args.path.clone(), ""))
}

const DEF: ToolDef = <read_file as Tool>::DEFINITION;

fn main() {
    assert_eq!(DEF.name(), "read-file");
    assert_eq!(DEF.description(), "Read a file from disk.");
    assert_eq!(DEF.title(), Some("Read file"));
    assert_eq!(DEF.aliases().collect::<Vec<_>>(), ["cat", "read"]);
    assert_eq!(
        DEF.scopes().collect::<Vec<_>>(),
        ["files:read", "https://api.example.com/files.read"]
    );
    assert!(DEF.read_only() && DEF.concurrency_safe() && !DEF.destructive());
    assert!(DEF.idempotent() && DEF.requires_approval());
    // `false` is a claim of its own: a closed world.
    assert_eq!(DEF.open_world(), Some(false));
    assert!(DEF.defer() && DEF.always_load());
    assert_eq!(DEF.category(), Some(Category::Filesystem));
    assert_eq!(DEF.output_type(), Some(OutputType::FileContent));
    assert_eq!(DEF.max_result_chars(), Some(30_000));
    assert_eq!(
        DEF.timeout(),
        Some(std::time::Duration::from_millis(5000))
    );
}
