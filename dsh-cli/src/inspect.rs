//! `dsh inspect`: each tool's definition, contract hash, and the
//! compatibility report of the provider formats a model is given tools in;
//! then the server's skills (the MCP Skills extension), each with its files.

use std::fmt::Write as _;

use clap::Args;
use dsh_kit::export::digest::tool_hash;
use dsh_kit::export::{Format, compatibility, export_tool};
use dsh_kit::skill::SkillEntry;
use dsh_kit::{Registry, ToolInfo};
use serde_json::{Value, json};

use crate::server::ServerArgs;
use crate::ui::{Paint, out, paint};
use crate::{Done, Outcome};

/// `dsh inspect`.
#[derive(Args, Debug)]
pub struct InspectArgs {
    /// Print JSON instead of a table: the definitions, hashes and reports.
    #[arg(long)]
    json: bool,

    #[command(flatten)]
    pub(crate) server: ServerArgs,
}

/// The formats whose report `inspect` shows: the strict modes, where a
/// schema loses or is refused the most, and Gemini's JSON Schema dialect.
pub const FORMATS: [(Format, &str, &str); 3] = [
    (Format::OpenAiStrict, "openai_strict", "OpenAI strict"),
    (
        Format::AnthropicStrict,
        "anthropic_strict",
        "Anthropic strict",
    ),
    (Format::Gemini, "gemini", "Gemini"),
];

pub async fn run(args: InspectArgs) -> Done {
    let server = args.server.required()?;
    let registry = Registry::new();
    let proxy = server.connect(&registry).await?;
    let tools = registry.tools();
    let skills = registry.skills().entries();
    if args.json {
        let report = json!({
            "server": server.describe(),
            "tools": tools.iter().map(tool_json).collect::<Vec<_>>(),
            "skills": skills.iter().map(skill_json).collect::<Vec<_>>(),
            "skipped": proxy.diagnostics().iter().map(|d| json!({
                "tool": d.tool_name, "code": d.code, "message": d.message,
            })).collect::<Vec<_>>(),
        });
        let text = serde_json::to_string_pretty(&report).unwrap_or_else(|_| report.to_string());
        out(&format!("{text}\n"));
    } else {
        let mut text = table(&server.describe(), &tools);
        text.push_str(&skill_table(&skills));
        out(&text);
    }
    Ok(Outcome::Ok)
}

/// One tool as JSON: its MCP definition, contract hash, and per format
/// whether strict mode can take it and what it loses.
fn tool_json(tool: &ToolInfo) -> Value {
    let mut formats = serde_json::Map::new();
    for (format, key, _) in FORMATS {
        let report = compatibility(std::slice::from_ref(tool), format);
        let lowered = &report[0].lowered;
        formats.insert(
            key.to_owned(),
            json!({
                "compatible": lowered.strict_compatible(),
                "usable": lowered.strict_usable(),
                "notes": lowered.notes.iter().map(|note| json!({
                    "pointer": note.pointer,
                    "kind": format!("{:?}", note.kind).to_lowercase(),
                    "message": note.message,
                })).collect::<Vec<_>>(),
            }),
        );
    }
    json!({
        "name": tool.name(),
        "contract": tool_hash(tool),
        "definition": export_tool(tool, Format::Mcp),
        "compatibility": formats,
    })
}

/// The table: a row per tool with its hash and a verdict per format, then
/// each tool's description and every note.
fn table(server: &str, tools: &[ToolInfo]) -> String {
    let mut text = String::new();
    let plural = if tools.len() == 1 { "" } else { "s" };
    let _ = writeln!(
        text,
        "{}\n",
        paint(
            Paint::Bold,
            format!("{server} · {} tool{plural}", tools.len())
        )
    );
    let width = tools
        .iter()
        .map(|tool| tool.name().chars().count())
        .max()
        .unwrap_or(0)
        .max(4);
    let mut heading = format!("{:<width$}  {:<19}", "TOOL", "CONTRACT");
    for (_, _, label) in FORMATS {
        let _ = write!(heading, "  {label:<17}");
    }
    let _ = writeln!(text, "{}", paint(Paint::Dim, heading.trim_end()));
    for tool in tools {
        let hash = tool_hash(tool);
        let short = hash.get(..19).unwrap_or(&hash);
        let _ = write!(text, "{:<width$}  {short:<19}", tool.name());
        for (format, _, _) in FORMATS {
            let report = compatibility(std::slice::from_ref(tool), format);
            let lowered = &report[0].lowered;
            let (verdict, color) = if lowered.strict_compatible() {
                ("ok".to_owned(), Paint::Green)
            } else if lowered.strict_usable() {
                (format!("loses {}", lowered.notes.len()), Paint::Yellow)
            } else {
                ("not strict".to_owned(), Paint::Red)
            };
            let pad = 17usize.saturating_sub(verdict.chars().count());
            let _ = write!(text, "  {}{}", paint(color, verdict), " ".repeat(pad));
        }
        text.truncate(text.trim_end_matches(' ').len());
        text.push('\n');
    }
    for tool in tools {
        let _ = writeln!(text, "\n{}", paint(Paint::Bold, tool.name()));
        let description = tool.definition().description();
        for line in description.lines() {
            let _ = writeln!(text, "  {line}");
        }
        let _ = writeln!(
            text,
            "  {} {}",
            paint(Paint::Dim, "contract"),
            tool_hash(tool)
        );
        for (format, _, label) in FORMATS {
            let report = compatibility(std::slice::from_ref(tool), format);
            for note in &report[0].lowered.notes {
                let _ = writeln!(
                    text,
                    "  {} {note}",
                    paint(Paint::Yellow, format!("{label}:"))
                );
            }
        }
    }
    text
}

/// One skill as JSON: its URI, front matter, and files (`"dynamic"` when
/// the server publishes none).
fn skill_json(skill: &SkillEntry) -> Value {
    let files = match &skill.files {
        Some(files) => json!(
            files
                .iter()
                .map(|file| json!({ "uri": file.uri, "digest": file.digest, "size": file.size }))
                .collect::<Vec<_>>()
        ),
        None => json!("dynamic"),
    };
    json!({ "uri": skill.uri, "frontmatter": skill.front_matter, "files": files })
}

/// The skills, after the tools: each URI, description, and its files.
fn skill_table(skills: &[SkillEntry]) -> String {
    let mut text = String::new();
    if skills.is_empty() {
        return text;
    }
    let plural = if skills.len() == 1 { "" } else { "s" };
    let _ = writeln!(
        text,
        "\n{}",
        paint(Paint::Bold, format!("{} skill{plural}", skills.len()))
    );
    for skill in skills {
        let _ = writeln!(text, "\n{}", paint(Paint::Bold, &skill.uri));
        for line in skill.description().lines() {
            let _ = writeln!(text, "  {line}");
        }
        match &skill.files {
            Some(files) => {
                let bytes: u64 = files.iter().map(|file| file.size).sum();
                let plural = if files.len() == 1 { "" } else { "s" };
                let _ = writeln!(
                    text,
                    "  {} {} file{plural}, {bytes} bytes",
                    paint(Paint::Dim, "files"),
                    files.len()
                );
                for file in files {
                    let _ = writeln!(
                        text,
                        "    {}  {}",
                        file.uri,
                        paint(Paint::Dim, &file.digest)
                    );
                }
            }
            None => {
                let _ = writeln!(text, "  {} dynamic", paint(Paint::Dim, "files"));
            }
        }
    }
    text
}
