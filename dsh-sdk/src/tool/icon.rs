//! Icons a host may show beside a tool: MCP's `icons` on a tool definition.
//!
//! An icon is a URI (`https:` or a `data:` URI) with an optional media type,
//! sizes and theme. Icons are presentation only: they are exported in MCP
//! `tools/list` and in the catalog, and they take no part in a tool's
//! [contract hash](crate::export::digest).
//!
//! ```
//! use dsh_kit::{Icon, IconTheme, ToolDef};
//!
//! const ICONS: &[Icon] = &[
//!     Icon::new("https://example.com/search.svg"),
//!     Icon::new("https://example.com/search-dark.png")
//!         .sizes(&["48x48"])
//!         .theme(IconTheme::Dark),
//! ];
//! const DEF: ToolDef = ToolDef::builder("search", "Search the web.").icons(ICONS).build();
//! assert_eq!(DEF.icons().len(), 2);
//! assert_eq!(ICONS[0].mime_type_text(), Some("image/svg+xml"));
//! ```

use std::borrow::Cow;

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};

use crate::tool::fixed::StrList;

/// One icon of a tool. Build it with [`Icon::new`] (in a `const`) or
/// [`Icon::owned`] (at run time).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Icon {
    src: Cow<'static, str>,
    mime_type: Option<Cow<'static, str>>,
    sizes: StrList,
    theme: Option<IconTheme>,
}

/// The theme an icon is drawn for; an icon without one suits any theme.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum IconTheme {
    /// For a light background.
    Light,
    /// For a dark background.
    Dark,
}

/// Why an icon's `src` cannot be used.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum IconError {
    /// The URI is neither `https:` nor `data:`.
    #[error("icon `{0}` must be an `https:` or a `data:` URI")]
    Scheme(String),
}

impl Icon {
    /// An icon at `src`, an `https:` or `data:` URI; its media type is read
    /// from the URI (a `data:` URI's type, or the file extension) unless
    /// [`mime_type`](Icon::mime_type) gives one.
    pub const fn new(src: &'static str) -> Self {
        Icon {
            src: Cow::Borrowed(src),
            mime_type: None,
            sizes: StrList::EMPTY,
            theme: None,
        }
    }

    /// An icon given at run time; refused unless `src` is `https:` or `data:`.
    pub fn owned(src: impl Into<String>) -> Result<Self, IconError> {
        let src = src.into();
        if !crate::value::names::is_icon_src(&src) {
            return Err(IconError::Scheme(src));
        }
        Ok(Icon {
            src: Cow::Owned(src),
            ..Icon::new("")
        })
    }

    /// The media type, when the URI does not tell it (`image/png`).
    pub const fn mime_type(mut self, mime_type: &'static str) -> Self {
        crate::tool::fixed::set(&mut self.mime_type, Some(Cow::Borrowed(mime_type)));
        self
    }

    /// The sizes the image has, each `WxH` (`"48x48"`) or `"any"`.
    pub const fn sizes(mut self, sizes: &'static [&'static str]) -> Self {
        crate::tool::fixed::set(&mut self.sizes, StrList::Static(sizes));
        self
    }

    /// Sizes given at run time.
    pub fn with_sizes(mut self, sizes: impl IntoIterator<Item = impl Into<String>>) -> Self {
        self.sizes = StrList::owned(sizes);
        self
    }

    /// The theme the icon is drawn for.
    pub const fn theme(mut self, theme: IconTheme) -> Self {
        crate::tool::fixed::set(&mut self.theme, Some(theme));
        self
    }

    /// The URI.
    pub fn src(&self) -> &str {
        &self.src
    }

    /// The media type: the one given, else the one the URI tells.
    pub fn mime_type_text(&self) -> Option<&str> {
        self.mime_type
            .as_deref()
            .or_else(|| guess_mime_type(&self.src))
    }

    /// The sizes, as given.
    pub fn size_list(&self) -> Vec<&str> {
        self.sizes.iter().collect()
    }

    /// The theme, if the icon has one.
    pub fn theme_kind(&self) -> Option<IconTheme> {
        self.theme
    }
}

/// MCP's `Icon`: `{"src", "mimeType"?, "sizes"?, "theme"?}`.
impl Serialize for Icon {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("src", self.src())?;
        if let Some(mime_type) = self.mime_type_text() {
            map.serialize_entry("mimeType", mime_type)?;
        }
        let sizes = self.size_list();
        if !sizes.is_empty() {
            map.serialize_entry("sizes", &sizes)?;
        }
        if let Some(theme) = self.theme {
            map.serialize_entry("theme", &theme)?;
        }
        map.end()
    }
}

/// The media type a URI tells: a `data:` URI's, or the file extension's.
fn guess_mime_type(src: &str) -> Option<&str> {
    if let Some(rest) = src.strip_prefix("data:") {
        let media = rest.split([';', ',']).next().unwrap_or("");
        return (!media.is_empty()).then_some(media);
    }
    let path = src.split(['?', '#']).next().unwrap_or(src);
    let (_, extension) = path.rsplit_once('.')?;
    let mime = match extension.to_ascii_lowercase().as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "svg" => "image/svg+xml",
        "webp" => "image/webp",
        "gif" => "image/gif",
        "ico" => "image/x-icon",
        _ => return None,
    };
    Some(mime)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn serializes_as_mcp_icons() {
        let icon = Icon::new("https://example.com/a/tool.SVG?v=2")
            .sizes(&["any"])
            .theme(IconTheme::Dark);
        assert_eq!(
            serde_json::to_value(&icon).unwrap(),
            serde_json::json!({
                "src": "https://example.com/a/tool.SVG?v=2",
                "mimeType": "image/svg+xml",
                "sizes": ["any"],
                "theme": "dark",
            })
        );
        let plain = Icon::new("https://example.com/icon");
        assert_eq!(
            serde_json::to_value(&plain).unwrap(),
            serde_json::json!({ "src": "https://example.com/icon" })
        );
    }

    #[test]
    fn reads_the_media_type_of_a_data_uri() {
        let icon = Icon::new("data:image/png;base64,iVBORw0KGgo=");
        assert_eq!(icon.mime_type_text(), Some("image/png"));
        let given = Icon::new("https://example.com/i.png").mime_type("image/avif");
        assert_eq!(given.mime_type_text(), Some("image/avif"));
    }

    #[test]
    fn owned_icons_must_be_https_or_data() {
        assert!(Icon::owned("https://example.com/i.png").is_ok());
        assert!(Icon::owned("DATA:image/png;base64,AA==").is_ok());
        assert_eq!(
            Icon::owned("http://example.com/i.png"),
            Err(IconError::Scheme("http://example.com/i.png".into()))
        );
        assert!(Icon::owned("javascript:alert(1)").is_err());
        assert!(Icon::owned("icon.png").is_err());
        let icon = Icon::owned("https://example.com/i.png")
            .unwrap()
            .with_sizes(["16x16", "32x32"]);
        assert_eq!(icon.size_list(), ["16x16", "32x32"]);
    }
}
