//! Cards as HTML: one self-contained renderer (CSS and a small script, no
//! dependencies, no build step) that draws the `card`-tagged JSON of
//! [`Card`], so any host, in any language, can reuse it.
//!
//! - [`CARDS_JS`] defines `DshCards.render(card, {running})`, which returns
//!   the card as an element: a generic card's input and output as
//!   collapsible, highlighted JSON; a terminal card's command, exit code and
//!   output with its ANSI colours; a diff with line numbers and colour; a
//!   read card with line numbers; search hits grouped by file; a web page's
//!   title, address and text. `DshCards.renderContent(blocks)` draws the
//!   content the model sees.
//! - [`CARDS_CSS`] styles them, light and dark.
//! - [`card_app_html`] is both, with a bridge, as one page: the MCP Apps
//!   view `dsh_kit::mcp::McpServer` serves for tools with a card
//!   (with the `mcp` feature).
//!
//! Card text always reaches the page as text, never as markup.
//!
//! [`Card`]: crate::value::card::Card

use crate::value::wire_keys::META_CARD;

/// The card renderer's script: defines `window.DshCards`.
pub const CARDS_JS: &str = include_str!("cards.js");

/// The card renderer's style sheet.
pub const CARDS_CSS: &str = include_str!("cards.css");

/// The bridge of the MCP Apps view: answers the host's JSON-RPC over
/// `postMessage` and draws each tool result's card.
const APP_JS: &str = include_str!("app.js");

/// The MIME type of an MCP Apps HTML view (`text/html;profile=mcp-app`).
pub const MCP_APP_MIME_TYPE: &str = "text/html;profile=mcp-app";

/// Where an MCP tool result carries its card: the key in the result's `_meta`.
pub use crate::value::wire_keys::META_CARD as CARD_META_KEY;

/// A whole HTML page that draws the card of the tool result an MCP Apps host
/// sends it (`ui/notifications/tool-result`): the renderer, its style sheet
/// and the bridge, inline, with nothing to fetch.
pub fn card_app_html() -> String {
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>Tool result</title>\n<style>\nbody {{ margin: 0; padding: 8px; background: transparent; }}\n\
         #dsh-app-status:empty {{ display: none; }}\n{CARDS_CSS}</style>\n</head>\n<body>\n\
         <p id=\"dsh-app-status\" role=\"status\">Waiting for the tool result\u{2026}</p>\n\
         <main id=\"dsh-app\" aria-live=\"polite\"></main>\n\
         <script>\n{CARDS_JS}</script>\n<script>\nconst DSH_CARD_META_KEY = \"{META_CARD}\";\n{APP_JS}</script>\n</body>\n</html>\n"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_app_page_inlines_everything_it_needs() {
        let html = card_app_html();
        assert!(html.contains("window.DshCards") || html.contains("global.DshCards"));
        assert!(html.contains("ui/notifications/tool-result"));
        assert!(html.contains(".dsh-card {"));
        // Nothing to fetch: no external script, style sheet or font.
        assert!(!html.contains("src=\"http"));
        assert!(!html.contains("<link"));
        // Inline scripts end only where the page ends them.
        for asset in [CARDS_JS, APP_JS] {
            assert!(!asset.to_ascii_lowercase().contains("</script"));
        }
    }
}
