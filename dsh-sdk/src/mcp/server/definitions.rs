//! [`Definitions`]: each tool's MCP definition, made once per registration.
//!
//! rmcp asks the server for a tool's definition on every `tools/call` of
//! protocol 2026-07-28, to check the call's `Mcp-Param-*` headers against
//! the tool's input schema. Exporting a tool and reading the export back
//! into rmcp's `Tool` takes some microseconds, a large part of what the
//! whole request costs; a definition depends only on the registered tool,
//! so it is kept until the tool is registered again or dropped.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError, Weak};

use rmcp::model::Tool;

use crate::tool::{Entry, ToolInfo};

/// How many names the cache holds before it starts again: more than any
/// server registers, so only names of tools dropped long ago go.
const MAX_NAMES: usize = 4096;

/// Each tool's MCP definition, with the registration it was made from.
#[derive(Default)]
pub(super) struct Definitions {
    made: Mutex<HashMap<String, Made>>,
}

/// One definition, and the registration it describes: a tool registered
/// again is a new registration, whose definition is made again.
struct Made {
    /// Compared by address: a `Weak` keeps its allocation, so no later
    /// registration can sit at the same address while this is held.
    entry: Weak<Entry>,
    definition: Arc<Tool>,
}

impl Definitions {
    /// `tool`'s definition: the one made before for this registration of
    /// it, else what `make` gives (kept when it gives one).
    pub(super) fn get_or_make(
        &self,
        tool: &ToolInfo,
        make: impl FnOnce() -> Option<Tool>,
    ) -> Option<Arc<Tool>> {
        let name = tool.definition().name();
        if let Some(made) = self.lock().get(name)
            && std::ptr::eq(made.entry.as_ptr(), Arc::as_ptr(&tool.entry))
        {
            return Some(Arc::clone(&made.definition));
        }
        let definition = Arc::new(make()?);
        let mut made = self.lock();
        if made.len() >= MAX_NAMES {
            made.clear();
        }
        made.insert(
            name.to_owned(),
            Made {
                entry: Arc::downgrade(&tool.entry),
                definition: Arc::clone(&definition),
            },
        );
        Some(definition)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, Made>> {
        self.made.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

#[cfg(test)]
mod tests {
    use std::cell::Cell;

    use serde_json::json;

    use super::*;
    use crate::{DynamicTool, Registry, ToolDef};

    fn echo(description: &str, property: &str) -> DynamicTool {
        DynamicTool::new(
            ToolDef::builder_owned("echo".to_owned(), description.to_owned()).build(),
            json!({ "type": "object", "properties": { property: { "type": "string" } } }),
            |args, _| async move { Ok(args) },
        )
    }

    /// The definition `definitions` gives for `echo`, and whether it was
    /// made for this lookup.
    fn look_up(definitions: &Definitions, registry: &Registry) -> (Arc<Tool>, bool) {
        let tool = registry.get("echo").expect("echo is registered");
        let made = Cell::new(false);
        let definition = definitions
            .get_or_make(&tool, || {
                made.set(true);
                Some(Tool::new(
                    "echo",
                    tool.definition().description().to_owned(),
                    Arc::new(serde_json::Map::new()),
                ))
            })
            .expect("a definition");
        (definition, made.get())
    }

    #[test]
    fn a_definition_is_made_once_per_registration() {
        let registry = Registry::new();
        let definitions = Definitions::default();
        let handle = registry.register_dynamic(echo("First.", "a")).unwrap();
        let (first, made) = look_up(&definitions, &registry);
        assert!(made);
        let (again, made) = look_up(&definitions, &registry);
        assert!(!made, "the second lookup reuses the definition");
        assert!(Arc::ptr_eq(&first, &again));

        assert!(handle.unregister());
        registry.register_dynamic(echo("Second.", "b")).unwrap();
        let (second, made) = look_up(&definitions, &registry);
        assert!(made, "a tool registered again gets a new definition");
        assert_eq!(second.description.as_deref(), Some("Second."));
    }

    #[test]
    fn a_tool_without_a_definition_is_asked_again() {
        let registry = Registry::new();
        let definitions = Definitions::default();
        registry.register_dynamic(echo("First.", "a")).unwrap();
        let tool = registry.get("echo").unwrap();
        assert!(definitions.get_or_make(&tool, || None).is_none());
        let (_, made) = look_up(&definitions, &registry);
        assert!(made);
    }
}
