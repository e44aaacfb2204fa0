//! Tools written in a crate that depends on dsh-kit as `tools`
//! (`tools = { package = "dsh-kit", … }`): every macro is told where the
//! runtime is with `crate = "tools"`, and nothing here can name `dsh_kit`.

use tools::prelude::*;

/// The arguments of `scale`.
#[derive(ToolArgs)]
#[dsh(crate = "tools")]
pub struct ScaleArgs {
    /// The value to scale
    pub value: f64,
    /// How to scale it
    pub by: Factor,
}

/// A factor, as a word.
#[derive(ToolOutput, Clone, Copy)]
#[dsh(crate = "::tools")]
#[serde(rename_all = "snake_case")]
pub enum Factor {
    /// Times two.
    Double,
    /// Times ten.
    Tenfold,
}

/// What `scale` returns.
#[derive(ToolOutput)]
#[dsh(crate = tools)]
pub struct Scaled {
    /// The scaled value.
    pub value: f64,
}

/// Scale a value.
#[tool(read_only, crate = "tools", render = scaled_text, present = scaled_card)]
pub async fn scale(args: ScaleArgs) -> Scaled {
    let by = match args.by {
        Factor::Double => 2.0,
        Factor::Tenfold => 10.0,
    };
    Scaled {
        value: args.value * by,
    }
}

/// What the model reads.
#[render(crate = "tools")]
pub fn scaled_text(_args: &ScaleArgs, out: &Scaled) -> Vec<ContentBlock> {
    vec![ContentBlock::text(format!("scaled: {}", out.value))]
}

/// What a UI shows.
#[present(crate = "tools")]
pub fn scaled_card(_args: &ScaleArgs, out: &Scaled) -> Card {
    Card::generic("scale", json!({}), Some(json!(out.value)))
}

/// A choice the user is asked for.
#[derive(Deserialize, JsonSchema, Elicit)]
#[dsh(crate = "tools")]
pub struct Confirm {
    /// Go ahead?
    pub go: bool,
}

/// Greet someone; parameters written inline become a generated args struct.
#[tool(crate = "tools")]
pub async fn greet(
    /// The name to greet
    name: String,
    exec: &Exec,
) -> Result<String, tools::anyhow::Error> {
    Ok(format!("Hello, {name}, from {}!", exec.tool_name()))
}

#[cfg(test)]
mod tests {
    use tools::Registry;

    use super::*;

    #[tokio::test(flavor = "current_thread")]
    async fn tools_made_through_a_renamed_dependency_run() {
        let registry = Registry::new();
        registry.register::<scale>().unwrap();
        registry.register::<greet>().unwrap();

        let result = registry
            .call("scale", json!({ "value": 1.5, "by": "tenfold" }))
            .await;
        assert!(!result.is_error(), "{result:?}");
        assert_eq!(result.text(), "scaled: 15");

        let result = registry.call("greet", json!({ "name": "Ada" })).await;
        assert_eq!(result.text(), "Hello, Ada, from greet!");

        let bad = registry
            .call("scale", json!({ "value": 1, "by": "triple" }))
            .await;
        assert!(bad.is_error());
    }
}
