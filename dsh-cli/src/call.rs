//! `dsh call`: one call of one tool, printed as a person reads it.

use std::path::PathBuf;

use clap::Args;
use dsh_kit::log::{SessionLog, terminal};
use dsh_kit::permission::{Approval, ApprovalRequest, FnApprover};
use dsh_kit::{Registry, ToolResult};
use serde_json::{Map, Value, json};

use crate::error::CliError;
use crate::server::ServerArgs;
use crate::ui::{DRAWING, out};
use crate::{Done, Outcome};

/// The longest `ARGS_JSON` or `--arg` value read, in bytes.
const MAX_ARGS_BYTES: usize = 1024 * 1024;

/// `dsh call`.
#[derive(Args, Debug)]
pub struct CallArgs {
    /// The tool to call.
    tool: String,

    /// Its arguments, as one JSON object: `'{"name":"Ada"}'`.
    #[arg(value_name = "ARGS_JSON")]
    args: Option<String>,

    /// One argument, `KEY=VALUE`: the value is read as JSON when it is JSON
    /// (`n=3`, `ok=true`, `tags=["a"]`), as a string otherwise. Repeat for
    /// more; they go over `ARGS_JSON`.
    #[arg(long = "arg", short = 'a', value_name = "KEY=VALUE")]
    arg: Vec<String>,

    /// Print the result as JSON: status, content, value, card, failure.
    #[arg(long)]
    json: bool,

    /// Append the call to this session log (JSON Lines), for `dsh replay`
    /// and `dsh web --log`.
    #[arg(long, value_name = "FILE")]
    record: Option<PathBuf>,

    #[command(flatten)]
    server: ServerArgs,
}

pub async fn run(args: CallArgs) -> Done {
    let input = arguments(args.args.as_deref(), &args.arg)?;
    let server = args.server.required()?;
    // Asking is for a model's calls; a person typing the call has decided.
    let registry = Registry::builder()
        .approver(FnApprover(|_: &ApprovalRequest<'_>| Approval::Approve))
        .build();
    let _proxy = server.connect(&registry).await?;
    if registry.get(&args.tool).is_none() {
        let suggestion = match registry.host().closest(&args.tool).first() {
            Some(name) => format!("; did you mean `{name}`? (`dsh inspect` lists them all)"),
            None => "; `dsh inspect` lists its tools".to_owned(),
        };
        return Err(CliError::UnknownTool {
            server: server.describe(),
            tool: args.tool,
            suggestion,
        });
    }
    let log = match &args.record {
        Some(path) => Some(SessionLog::open(path)?),
        None => None,
    };
    let logging = log.as_ref().map(|log| registry.subscribe(log.subscriber()));
    let result = registry.call(&args.tool, Value::Object(input)).await;
    drop(logging);
    if let Some(error) = log.as_ref().and_then(SessionLog::take_error) {
        return Err(error.into());
    }
    if args.json {
        let text = serde_json::to_string_pretty(&result_json(&result))
            .unwrap_or_else(|error| format!("{{\"error\": \"{error}\"}}"));
        out(&format!("{text}\n"));
    } else {
        out(&terminal::result(&result, DRAWING));
    }
    Ok(if result.is_error() {
        Outcome::Failed
    } else {
        Outcome::Ok
    })
}

/// The arguments: `ARGS_JSON`'s object, then each `--arg` over it.
fn arguments(json: Option<&str>, pairs: &[String]) -> Result<Map<String, Value>, CliError> {
    let mut input = match json {
        None => Map::new(),
        Some(text) if text.len() > MAX_ARGS_BYTES => {
            return Err(CliError::BadArgs(format!(
                "ARGS_JSON is {} bytes, more than the {MAX_ARGS_BYTES} read",
                text.len()
            )));
        }
        Some(text) => match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(object)) => object,
            Ok(other) => {
                return Err(CliError::BadArgs(format!(
                    "ARGS_JSON must be a JSON object like '{{\"name\":\"Ada\"}}', not {}",
                    kind(&other)
                )));
            }
            Err(error) => {
                return Err(CliError::BadArgs(format!(
                    "ARGS_JSON is not JSON ({error}); quote it for the shell: '{{\"name\":\"Ada\"}}', or use `--arg name=Ada`"
                )));
            }
        },
    };
    for pair in pairs {
        let Some((key, value)) = pair.split_once('=') else {
            return Err(CliError::BadArgs(format!(
                "`--arg {pair}` needs the form KEY=VALUE, like `--arg name=Ada`"
            )));
        };
        if key.is_empty() {
            return Err(CliError::BadArgs(format!(
                "`--arg {pair}` has no key before `=`"
            )));
        }
        if value.len() > MAX_ARGS_BYTES {
            return Err(CliError::BadArgs(format!(
                "`--arg {key}=…` is {} bytes, more than the {MAX_ARGS_BYTES} read",
                value.len()
            )));
        }
        let value = serde_json::from_str(value).unwrap_or_else(|_| Value::String(value.to_owned()));
        input.insert(key.to_owned(), value);
    }
    Ok(input)
}

fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The result as JSON, for `--json`.
fn result_json(result: &ToolResult) -> Value {
    json!({
        "tool": result.tool_name,
        "status": result.status(),
        "is_error": result.is_error(),
        "content": result.content(),
        "value": result.value,
        "card": result.card(),
        "failure": result.failure,
        "truncated": result.truncated,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn arguments_merge_json_and_pairs() {
        let input = arguments(
            Some(r#"{"name":"Ada","n":1}"#),
            &[
                "n=3".into(),
                "tags=[\"a\"]".into(),
                "word=hello world".into(),
            ],
        )
        .unwrap();
        assert_eq!(
            Value::Object(input),
            json!({"name": "Ada", "n": 3, "tags": ["a"], "word": "hello world"})
        );
    }

    #[test]
    fn bad_arguments_say_how_to_write_them() {
        let error = arguments(Some("[1]"), &[]).unwrap_err().to_string();
        assert!(error.contains("must be a JSON object"), "{error}");
        let error = arguments(Some("{name:"), &[]).unwrap_err().to_string();
        assert!(error.contains("--arg name=Ada"), "{error}");
        let error = arguments(None, &["novalue".into()])
            .unwrap_err()
            .to_string();
        assert!(error.contains("KEY=VALUE"), "{error}");
        let error = arguments(None, &["=x".into()]).unwrap_err().to_string();
        assert!(error.contains("no key"), "{error}");
    }
}
