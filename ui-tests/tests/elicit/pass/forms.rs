use dsh_kit::client::{Elicited, elicitation_schema};
use dsh_kit::elicit::ElicitField;
use dsh_kit::prelude::*;

/// A choice, renamed.
#[derive(Debug, Deserialize, JsonSchema, Elicit)]
#[serde(rename_all = "lowercase")]
enum Size {
    /// Small
    Small,
    /// Large
    #[serde(rename = "xl")]
    Large,
}

/// A string of the user's own type, a primitive by its own impl.
#[derive(Deserialize, JsonSchema)]
#[serde(transparent)]
struct Email(String);

impl ElicitField for Email {}

/// An alias the derive cannot see into: decided by the type it names.
type Count = u64;

fn three() -> i32 {
    3
}

/// Every field type elicitation allows.
#[derive(Deserialize, JsonSchema, Elicit)]
#[serde(rename_all = "camelCase")]
#[allow(dead_code)]
struct Everything {
    /// A string
    text: String,
    /// A boolean
    flag: bool,
    i_8: i8,
    i_16: i16,
    /// Defaults to three
    #[serde(default = "three")]
    i_32: i32,
    i_64: i64,
    i_128: i128,
    i_size: isize,
    u_8: u8,
    u_16: u16,
    u_32: u32,
    u_64: u64,
    u_128: u128,
    u_size: usize,
    f_32: f32,
    f_64: f64,
    /// Optional
    maybe: Option<String>,
    size: Size,
    maybe_size: Option<Size>,
    /// Several sizes
    sizes: Vec<Size>,
    email: Email,
    count: Count,
    #[serde(rename = "other")]
    renamed: bool,
    /// Not asked: skipped
    #[serde(skip)]
    cache: Vec<Vec<String>>,
}

/// A generic form: its field bound where it is used.
#[derive(Deserialize, JsonSchema, Elicit)]
#[allow(dead_code)]
struct Generic<T> {
    value: T,
}

/// Asks for everything.
#[tool]
async fn ask(exec: &Exec) -> Result<String, ToolError> {
    Ok(match exec.elicit::<Everything>("Fill in everything").await? {
        Elicited::Accepted(form) => form.text,
        Elicited::Declined | Elicited::Cancelled => String::new(),
    })
}

/// Asks for a generic form of a primitive.
#[tool]
async fn ask_generic(exec: &Exec) -> Result<String, ToolError> {
    let _ = exec.elicit::<Generic<bool>>("Yes or no").await?;
    Ok(String::new())
}

fn main() {
    let schema = elicitation_schema::<Everything>().unwrap();
    assert_eq!(schema["properties"]["sizes"]["type"], "array");
    assert_eq!(schema["properties"]["other"]["type"], "boolean");
    assert!(schema["properties"].get("cache").is_none());
    let _ = (ask {}, ask_generic {});
}
