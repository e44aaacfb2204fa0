//! Registering, looking up and unregistering tools.

use dsh_kit::Registry;
use dsh_kit::prelude::*;
use dsh_kit::{RegisterError, ToolDef};

/// Greet someone by name.
#[tool(aliases = ["hello", "hi"])]
async fn greet(
    /// The name to greet
    name: String,
) -> String {
    format!("Hello, {name}!")
}

// Tools of other modules (other crates, in practice) that collide with
// `greet` at run time: in one module, the collision is a compile error.
mod others {
    use dsh_kit::prelude::*;

    /// Also greets, under a name `greet` already holds as an alias.
    #[tool(name = "hello")]
    pub async fn other_hello() -> String {
        "hi".into()
    }
}

mod waving {
    use dsh_kit::prelude::*;

    /// Claims an alias of `greet`.
    #[tool(aliases = ["hi"])]
    pub async fn wave() -> String {
        "o/".into()
    }
}

use others::other_hello;
use waving::wave;

#[test]
fn lookup_works_by_name_and_by_alias() {
    let registry = Registry::new();
    let _greet = registry.register::<greet>().unwrap();
    for name in ["greet", "hello", "hi"] {
        let tool = registry
            .get(name)
            .unwrap_or_else(|| panic!("`{name}` not found"));
        assert_eq!(tool.name(), "greet");
    }
    assert!(registry.get("howdy").is_none());
}

#[test]
fn unregistering_removes_the_tool_and_its_aliases() {
    let registry = Registry::new();
    let handle = registry.register::<greet>().unwrap();
    assert_eq!(registry.tools().len(), 1);
    assert!(handle.unregister());
    assert!(registry.tools().is_empty());
    assert!(registry.get("hello").is_none());
    // The names are free again.
    let _again = registry.register::<other_hello>().unwrap();
}

#[test]
fn a_stale_handle_does_not_unregister_a_newer_tool_of_the_same_name() {
    let registry = Registry::new();
    let first = registry.register::<greet>().unwrap().scoped();
    drop(first);
    let second = registry.register::<greet>().unwrap();
    assert!(registry.get("greet").is_some());
    assert!(second.unregister());
    assert!(registry.get("greet").is_none());
}

#[test]
fn ignoring_the_handle_keeps_the_tool() {
    let registry = Registry::new();
    let _ = registry.register::<greet>();
    assert!(registry.get("greet").is_some());
    registry.register::<wave>().unwrap_err();
    drop(registry.register::<other_hello>());
    assert!(registry.get("greet").is_some());
}

#[test]
fn a_scoped_tool_lives_as_long_as_its_guard() {
    let registry = Registry::new();
    {
        let greet = registry.register::<greet>().unwrap().scoped();
        assert_eq!(greet.name(), "greet");
        assert!(registry.get("hello").is_some());
    }
    assert!(registry.get("greet").is_none());
    assert!(registry.get("hello").is_none());
}

#[test]
fn a_taken_name_is_refused_naming_both_tools() {
    let registry = Registry::new();
    let _greet = registry.register::<greet>().unwrap();
    let error = registry.register::<other_hello>().unwrap_err();
    assert!(matches!(error, RegisterError::Duplicate { .. }));
    assert_eq!(
        error.to_string(),
        "cannot register `hello`: the name `hello` is already taken by `greet`"
    );
    let error = registry.register::<wave>().unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot register `wave`: the name `hi` is already taken by `greet`"
    );
    let error = registry.register::<greet>().unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot register `greet`: the name `greet` is already taken by `greet`"
    );
}

#[test]
fn the_registry_is_shared_by_clones_across_threads() {
    fn assert_send_sync<T: Send + Sync + Clone>() {}
    assert_send_sync::<Registry>();

    let registry = Registry::new();
    let clone = registry.clone();
    let handle = std::thread::spawn(move || clone.register::<greet>().unwrap())
        .join()
        .unwrap();
    assert!(registry.get("greet").is_some());
    assert!(handle.unregister());
    assert!(registry.get("greet").is_none());
}

/// A tool written by hand, whose name the macro would have refused.
struct BadName;

impl Tool for BadName {
    type Args = serde_json::Map<String, serde_json::Value>;
    type Output = String;
    const DEFINITION: ToolDef = ToolDef::builder("has space", "Has a bad name.").build();

    async fn execute(_: Self::Args, _: &Exec) -> Result<String, ToolError> {
        Ok(String::new())
    }
}

/// A hand-written tool whose args are not an object.
struct StringArgs;

impl Tool for StringArgs {
    type Args = String;
    type Output = String;
    const DEFINITION: ToolDef = ToolDef::builder("string_args", "Takes a bare string.").build();

    async fn execute(args: String, _: &Exec) -> Result<String, ToolError> {
        Ok(args)
    }
}

/// A unit enum: its schema is a string enum, never an object.
#[derive(Deserialize, JsonSchema)]
enum Mode {
    Fast,
    Slow,
}

/// Takes a unit enum as its arguments, which the macro cannot see.
#[tool]
async fn moded(args: Mode) -> String {
    match args {
        Mode::Fast => "fast".into(),
        Mode::Slow => "slow".into(),
    }
}

#[test]
fn an_invalid_name_is_refused() {
    let error = Registry::new().register::<BadName>().unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot register `has space`: a tool name must be 1 to 64 characters of `a-z`, `A-Z`, `0-9`, `_` or `-`"
    );
}

#[test]
fn args_that_are_not_an_object_are_refused() {
    let error = Registry::new().register::<StringArgs>().unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot register `string_args`: its arguments must be an object with named fields, but their schema is `\"type\": \"string\"`"
    );
    let error = Registry::new().register::<moded>().unwrap_err();
    assert_eq!(
        error.to_string(),
        "cannot register `moded`: its arguments must be an object with named fields, but their schema is `\"type\": \"string\"`"
    );
}

#[test]
fn closest_names_include_aliases_and_resolve_them() {
    let registry = Registry::new();
    let _greet = registry.register::<greet>().unwrap();
    assert_eq!(registry.host().closest("gret"), ["greet"]);
    assert_eq!(registry.host().closest("helo"), ["greet"]);
    assert!(registry.host().closest("zzzzzz").is_empty());
}

mod card_views {
    use dsh_kit::Registry;
    use dsh_kit::prelude::*;
    use serde_json::json;

    /// Greet someone by name.
    #[tool]
    async fn plain(
        /// The name to greet
        name: String,
    ) -> String {
        name
    }

    /// Count to a number.
    #[tool(present = count_card)]
    async fn counted(
        /// How far, 1 to 10
        #[schemars(range(min = 1, max = 10))]
        to: u32,
    ) -> u32 {
        to
    }

    #[present]
    fn count_card(_args: &CountedArgs, to: &u32) -> Card {
        Card::generic("count", json!({}), Some(json!(to)))
    }

    #[test]
    fn a_tool_says_whether_it_presents_its_own_card() {
        let registry = Registry::new();
        let _plain = registry.register::<plain>().unwrap();
        let _counted = registry.register::<counted>().unwrap();
        assert!(!registry.get("plain").unwrap().presents());
        assert!(registry.get("counted").unwrap().presents());
    }

    #[test]
    fn violations_are_the_pipeline_s_with_their_pointers() {
        let registry = Registry::new();
        let _counted = registry.register::<counted>().unwrap();
        let tool = registry.get("counted").unwrap();
        assert!(tool.violations(&json!({ "to": 3 })).is_empty());
        let found = |args| -> Vec<(String, String)> {
            tool.violations(&args)
                .into_iter()
                .map(|violation| (violation.pointer, violation.message))
                .collect()
        };
        assert_eq!(
            found(json!({ "to": 11 })),
            [(
                "/to".to_owned(),
                "11 is greater than the maximum of 10".to_owned()
            )]
        );
        assert_eq!(
            found(json!({})),
            [("/to".to_owned(), "required property missing".to_owned())]
        );
    }
}
