use dsh_kit::export::Format;
use dsh_kit::prelude::*;
use dsh_kit::Registry;

/// Look an order up in one region's store.
#[tool(read_only)]
async fn find_order(
    /// Where the order was placed
    #[dsh(header = "Region")]
    region: String,
    /// The tenant, when the caller has several
    #[dsh(header = "Tenant-Id")]
    tenant: Option<u32>,
    /// Search the archive too
    #[dsh(header = "Archive")]
    archive: bool,
    /// The order number, as the model names it
    #[dsh(header = "Order")]
    #[serde(rename = "orderNumber")]
    order: i64,
    /// Not mirrored
    note: Option<String>,
) -> String {
    format!("{region} {tenant:?} {archive} {order} {note:?}")
}

#[derive(ToolArgs)]
struct ShipArgs {
    /// Where to ship from
    #[dsh(header = "Warehouse")]
    warehouse: String,
    /// How many
    count: u8,
}

/// Ship from one warehouse.
#[tool]
async fn ship(args: ShipArgs) -> String {
    format!("{} {}", args.warehouse, args.count)
}

fn main() {
    let registry = Registry::new();
    registry.register::<find_order>().unwrap();
    registry.register::<ship>().unwrap();
    let exported = registry.export(Format::Mcp);
    let find = exported.as_array().unwrap().iter().find(|tool| tool["name"] == "find_order").unwrap();
    let properties = &find["inputSchema"]["properties"];
    assert_eq!(properties["region"]["x-mcp-header"], "Region");
    assert_eq!(properties["region"]["type"], "string");
    // An `Option` is an optional property with one type, as clients need.
    assert_eq!(properties["tenant"]["x-mcp-header"], "Tenant-Id");
    assert_eq!(properties["tenant"]["type"], "integer");
    assert_eq!(properties["archive"]["type"], "boolean");
    // The header follows the name the model sees; integers stay in the safe range.
    assert_eq!(properties["orderNumber"]["x-mcp-header"], "Order");
    assert_eq!(properties["orderNumber"]["maximum"], dsh_kit::MAX_SAFE_INTEGER);
    assert!(properties["note"].get("x-mcp-header").is_none());
    let ship = exported.as_array().unwrap().iter().find(|tool| tool["name"] == "ship").unwrap();
    assert_eq!(ship["inputSchema"]["properties"]["warehouse"]["x-mcp-header"], "Warehouse");
    // Model providers do not see MCP's transport.
    let openai = registry.export(Format::OpenAi);
    assert!(!openai.to_string().contains("x-mcp-header"));
}
