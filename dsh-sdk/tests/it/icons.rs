//! Icons from the tool definition reach MCP's `tools/list` export, and take
//! no part in the contract hash.

use dsh_kit::Registry;
use dsh_kit::export::Format;
use dsh_kit::prelude::*;
use dsh_kit::{DynamicTool, Icon, IconTheme, ToolDef};
use serde_json::json;

/// Read a file from disk.
#[tool(
    read_only,
    icons = ["https://example.com/read.svg", "data:image/png;base64,iVBORw0KGgo="]
)]
async fn read_file(path: String) -> String {
    path
}

mod plain {
    use dsh_kit::prelude::*;

    /// Read a file from disk.
    #[tool(read_only)]
    pub async fn read_file(path: String) -> String {
        path
    }
}

#[test]
fn tool_icons_are_exported_to_mcp_with_their_media_types() {
    let registry = Registry::new();
    registry.register::<read_file>().unwrap();
    let exported = registry.export(Format::Mcp);
    assert_eq!(
        exported[0]["icons"],
        json!([
            { "src": "https://example.com/read.svg", "mimeType": "image/svg+xml" },
            { "src": "data:image/png;base64,iVBORw0KGgo=", "mimeType": "image/png" },
        ])
    );
    // Other formats have no place for icons.
    assert!(registry.export(Format::OpenAi)[0].get("icons").is_none());
}

#[test]
fn a_tool_without_icons_exports_none() {
    let registry = Registry::new();
    registry.register::<plain::read_file>().unwrap();
    assert!(registry.export(Format::Mcp)[0].get("icons").is_none());
}

#[test]
fn icons_do_not_change_the_contract_hash() {
    let with = Registry::new();
    with.register::<read_file>().unwrap();
    let without = Registry::new();
    without.register::<plain::read_file>().unwrap();
    let hash = |registry: &Registry| registry.catalog().tools[0].contract_hash.clone();
    assert!(hash(&with).is_some());
    assert_eq!(hash(&with), hash(&without));
}

#[test]
fn dynamic_tools_take_icons_given_at_run_time() {
    let icon = Icon::owned("https://example.com/dark.png")
        .unwrap()
        .with_sizes(["48x48"])
        .theme(IconTheme::Dark);
    let def = ToolDef::builder_owned("echo", "Echo the input.")
        .with_icons([icon])
        .build();
    let tool = DynamicTool::new(def, json!({ "type": "object" }), |args, _exec| async move {
        Ok(args)
    });
    let registry = Registry::new();
    registry.register_dynamic(tool).unwrap();
    assert_eq!(
        registry.export(Format::Mcp)[0]["icons"],
        json!([{
            "src": "https://example.com/dark.png",
            "mimeType": "image/png",
            "sizes": ["48x48"],
            "theme": "dark",
        }])
    );
    assert!(Icon::owned("file:///etc/passwd").is_err());
}
