//! [`DynamicTool`]: a tool built at run time from a name, a description, raw
//! JSON Schemas and an async handler over JSON values (a proxied MCP tool, a
//! tool read from a config file).
//!
//! It takes the same path as a `#[tool]` fn: its schemas are checked against
//! the JSON Schema 2020-12 meta-schema and compiled once, at registration;
//! every call's arguments are validated against the input schema (every
//! violation at once) before the handler sees them, and every value against
//! the output schema, if there is one, before the model does. Its render is
//! the default (a string as itself, anything else as compact JSON) unless one
//! is given; its card is the generic one (a proxied dsh server's tool shows
//! the card the server presented each value with, recorded with the value).
//!
//! ```
//! use dsh_kit::prelude::*;
//! use dsh_kit::Registry;
//! use dsh_kit::DynamicTool;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! let registry = Registry::new();
//! let shout = DynamicTool::new(
//!     ToolDef::builder_owned("shout", "Say something loudly.").read_only(true).build(),
//!     json!({
//!         "type": "object",
//!         "properties": { "text": { "type": "string", "minLength": 1 } },
//!         "required": ["text"]
//!     }),
//!     |args, _exec| async move {
//!         let text = args["text"].as_str().unwrap_or_default();
//!         Ok(json!(text.to_uppercase()))
//!     },
//! )
//! .output_schema(json!({ "type": "string" }));
//! let _shout = registry.register_dynamic(shout).unwrap();
//!
//! assert_eq!(registry.call("shout", json!({ "text": "hi" })).await.text(), "HI");
//! let bad = registry.call("shout", json!({ "text": "" })).await;
//! assert_eq!(bad.text(), r#"invalid arguments for `shout`: /text: "" is shorter than 1 character"#);
//! # }
//! ```

use std::fmt;
use std::future::Future;
use std::sync::Arc;

use futures_util::future::BoxFuture;
use serde_json::Value;

use crate::tool::Exec;
use crate::tool::ToolDef;
use crate::tool::ToolError;
use crate::tool::{Executed, Handler, PrepareError, Prepared, Projection, ReadError};
use crate::value::content::ContentBlock;

/// The code of the warning diagnostic that says a dynamic tool was left out
/// of the pool because a built-in tool has its name.
pub const TOOL_SHADOWED: &str = "TOOL_SHADOWED";

/// The body of a dynamic tool: the validated arguments in, the canonical value out.
type CallFn = dyn Fn(Value, Exec) -> BoxFuture<'static, Result<Executed, ToolError>> + Send + Sync;

/// A dynamic tool's render: the arguments and the canonical value in, content out.
type RenderJsonFn = dyn Fn(&Value, &Value) -> Vec<ContentBlock> + Send + Sync;

/// A tool made at run time: a [`ToolDef`] (name, description, flags), a raw
/// input JSON Schema, optionally an output schema and a render, and an async
/// handler over JSON values. Register it with
/// [`Registry::register_dynamic`](crate::Registry::register_dynamic).
///
/// See [the module docs](crate::tool) for an example.
#[derive(Clone)]
pub struct DynamicTool {
    def: ToolDef,
    input_schema: Value,
    output_schema: Option<Value>,
    failure_schema: Option<Value>,
    call: Arc<CallFn>,
    render: Option<Arc<RenderJsonFn>>,
    /// Whether its values come with the card they were presented with
    /// elsewhere (a proxied dsh server's tool).
    presents_remotely: bool,
}

impl DynamicTool {
    /// A tool named and flagged by `def`, whose arguments follow
    /// `input_schema` (JSON Schema 2020-12, an object at the root), run by
    /// `handler`.
    ///
    /// The handler gets the raw arguments only after they passed the input
    /// schema, and the call's [`Exec`] (cancellation, progress, state).
    pub fn new<F, Fut>(def: ToolDef, input_schema: Value, handler: F) -> Self
    where
        F: Fn(Value, Exec) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Value, ToolError>> + Send + 'static,
    {
        DynamicTool {
            def,
            input_schema,
            output_schema: None,
            failure_schema: None,
            call: Arc::new(move |args, exec| {
                let running = handler(args, exec);
                Box::pin(async move { running.await.map(Executed::from) })
            }),
            render: None,
            presents_remotely: false,
        }
    }

    /// A tool like [`new`](Self::new)'s whose handler gives, with each
    /// value, what it was shown with where the tool really ran (a proxied
    /// MCP server's tool).
    #[cfg(feature = "proxy")]
    pub(crate) fn shown_remotely<F, Fut>(def: ToolDef, input_schema: Value, handler: F) -> Self
    where
        F: Fn(Value, Exec) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<Executed, ToolError>> + Send + 'static,
    {
        DynamicTool {
            def,
            input_schema,
            output_schema: None,
            failure_schema: None,
            call: Arc::new(move |args, exec| Box::pin(handler(args, exec))),
            render: None,
            presents_remotely: false,
        }
    }

    /// Validates every value the handler returns against `schema` (JSON Schema
    /// 2020-12). Without one, any value passes, and the MCP export has no
    /// `outputSchema`.
    pub fn output_schema(mut self, schema: Value) -> Self {
        self.output_schema = Some(schema);
        self
    }

    /// Declares the tool's failure shapes, as [`Tool::failure_schema`] does
    /// for a typed tool: exported with the definition.
    ///
    /// [`Tool::failure_schema`]: crate::Tool::failure_schema
    pub fn failure_schema(mut self, schema: Value) -> Self {
        self.failure_schema = Some(schema);
        self
    }

    /// Renders what the model sees from the arguments and the canonical
    /// value, instead of the default (a string as itself, anything else as
    /// compact JSON). Must be pure, like a `#[render]`.
    pub fn render(
        mut self,
        render: impl Fn(&Value, &Value) -> Vec<ContentBlock> + Send + Sync + 'static,
    ) -> Self {
        self.render = Some(Arc::new(render));
        self
    }

    /// Marks the tool as presenting its own card, though not here: its
    /// handler returns each value with the card it was presented with where
    /// it ran ([`shown_remotely`](Self::shown_remotely)), as a proxied dsh
    /// server's tool does.
    #[cfg(feature = "proxy")]
    pub(crate) fn presents_remotely(mut self) -> Self {
        self.presents_remotely = true;
        self
    }

    /// Name, description and flags.
    pub fn definition(&self) -> &ToolDef {
        &self.def
    }

    /// The input schema, as given.
    pub fn input_schema(&self) -> &Value {
        &self.input_schema
    }
}

impl DynamicTool {
    /// Its definition, input schema, output schema (`true`, which every
    /// value passes, when none was given) and handler, for the pool.
    pub(crate) fn into_parts(self) -> (ToolDef, Value, Value, Dynamic) {
        let output = self.output_schema.unwrap_or(Value::Bool(true));
        let handler = Dynamic {
            call: self.call,
            render: self.render,
            failure: self.failure_schema,
            presents: self.presents_remotely,
        };
        (self.def, self.input_schema, output, handler)
    }
}

impl fmt::Debug for DynamicTool {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DynamicTool")
            .field("def", &self.def)
            .field("input_schema", &self.input_schema)
            .field("output_schema", &self.output_schema)
            .field("render", &self.render.is_some())
            .finish_non_exhaustive()
    }
}

/// The [`Handler`] of a dynamic tool: its arguments stay JSON all the way.
pub(crate) struct Dynamic {
    call: Arc<CallFn>,
    render: Option<Arc<RenderJsonFn>>,
    failure: Option<Value>,
    /// Presents remotely: see [`DynamicTool::presents_remotely`].
    presents: bool,
}

impl Handler for Dynamic {
    fn prepare(&self, args: &Value, exec: &Exec) -> Result<Prepared, PrepareError> {
        // The host's function is called only when the call runs: it may do
        // work before it returns its future.
        let (call, args, exec) = (Arc::clone(&self.call), args.clone(), exec.clone());
        Ok(Box::pin(async move { call(args, exec).await }))
    }

    fn project(
        &self,
        args: &Value,
        value: &Value,
        _present: bool,
    ) -> Result<Projection, ReadError> {
        Ok(Projection {
            content: self.render.as_ref().map(|render| render(args, value)),
            card: None,
        })
    }

    fn is_dynamic(&self) -> bool {
        true
    }

    fn presents(&self) -> bool {
        self.presents
    }

    fn failure_schema(&self) -> Option<Value> {
        self.failure.clone()
    }
}
