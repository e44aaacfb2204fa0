//! The compatibility report: what each tool's schema loses in a format, and
//! which tools an Anthropic strict export can keep strict within its
//! per-request budget.

use super::Format;
use super::lower::limits::{
    ANTHROPIC_OPTIONAL_BUDGET, ANTHROPIC_STRICT_TOOLS, ANTHROPIC_UNION_BUDGET, anthropic_costs,
};
use super::lower::{Lowered, Note, NoteKind, anthropic_strict, lower};
use crate::tool::ToolInfo;

/// What one tool's schema loses in one export format.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Compatibility {
    /// The tool's name.
    pub tool: String,
    /// Its input schema lowered into the format, with what that loses; for
    /// the Gemini formats, a name Gemini refuses comes first among the notes.
    /// [`Lowered::strict_compatible`] says whether nothing is lost and
    /// [`Lowered::strict_usable`] whether strict mode can take it (the
    /// per-request budget of Anthropic strict aside).
    pub lowered: Lowered,
}

/// What each of `tools` loses in `format`, tool by tool, in the order
/// given ([`Registry::compatibility`](crate::Registry::compatibility) gives every registered tool, sorted by name): the notes of its [`lower`]ed input schema,
/// and for the Gemini formats a name Gemini refuses.
///
/// ```
/// use dsh_kit::export::Format;
/// use dsh_kit::prelude::*;
/// use dsh_kit::Registry;
///
/// /// Look a word up.
/// #[tool]
/// async fn define(
///     /// The word, in lower case
///     #[schemars(length(min = 1))]
///     word: String,
/// ) -> String {
///     word
/// }
///
/// let registry = Registry::new();
/// registry.register::<define>().unwrap();
/// let report = registry.compatibility(Format::AnthropicStrict);
/// assert_eq!(report[0].tool, "define");
/// assert!(!report[0].lowered.strict_compatible());
/// assert_eq!(
///     report[0].lowered.notes[0].to_string(),
///     "/properties/word: `minLength` is not supported: moved into the description"
/// );
/// // Canonical validation still enforces it; strict decoding stays on.
/// assert!(report[0].lowered.strict_usable());
/// ```
pub fn compatibility(tools: &[ToolInfo], format: Format) -> Vec<Compatibility> {
    tools
        .iter()
        .map(|tool| {
            let mut lowered = lower(tool.input_schema(), format);
            if matches!(format, Format::Gemini | Format::GeminiOpenApi)
                && !tool
                    .name()
                    .starts_with(|c: char| c.is_ascii_alphabetic() || c == '_')
            {
                lowered.notes.insert(
                    0,
                    Note::new(
                        "",
                        NoteKind::Refused,
                        format!(
                            "the name `{}` must start with a letter or an underscore for Gemini",
                            tool.name()
                        ),
                    ),
                );
            }
            Compatibility {
                tool: tool.name().to_owned(),
                lowered,
            }
        })
        .collect()
}

/// The format each tool of an exported list goes out in: as asked, except
/// that Anthropic strict keeps to its per-request budget (20 strict tools, 24
/// optional and 16 union-typed parameters across them), in list order; a
/// tool past it, or one whose lowering blocks strict mode, goes out plain.
pub(crate) fn formats_for(tools: &[ToolInfo], format: Format) -> Vec<Format> {
    if format != Format::AnthropicStrict {
        return vec![format; tools.len()];
    }
    let (mut strict, mut optional, mut unions) = (0, 0, 0);
    tools
        .iter()
        .map(|tool| {
            let lowered = anthropic_strict(tool.input_schema());
            let (o, u) = anthropic_costs(&lowered.schema);
            let fits = lowered.strict_usable()
                && strict < ANTHROPIC_STRICT_TOOLS
                && optional + o <= ANTHROPIC_OPTIONAL_BUDGET
                && unions + u <= ANTHROPIC_UNION_BUDGET;
            if fits {
                strict += 1;
                optional += o;
                unions += u;
                Format::AnthropicStrict
            } else {
                Format::Anthropic
            }
        })
        .collect()
}
