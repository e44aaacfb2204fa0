//! [`ContentBlock`]: what the model sees of a result.

use serde::{Deserialize, Serialize};

/// One block of content for the model, shaped as MCP's content blocks.
///
/// ```
/// use dsh_kit::ContentBlock;
///
/// let block = ContentBlock::text("Hello, Ada!");
/// assert_eq!(
///     serde_json::to_string(&block).unwrap(),
///     r#"{"type":"text","text":"Hello, Ada!"}"#
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "snake_case")]
pub enum ContentBlock {
    /// Plain text.
    Text {
        /// The text.
        text: String,
    },
    /// An image, base64-encoded.
    Image {
        /// The image bytes, base64-encoded.
        data: String,
        /// Its media type, such as `image/png`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A link to a resource the model can fetch or read.
    ResourceLink {
        /// Where the resource is.
        uri: String,
        /// Its name.
        name: String,
        /// What it holds.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        description: Option<String>,
        /// Its media type.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
    },
    /// Audio, base64-encoded.
    Audio {
        /// The audio bytes, base64-encoded.
        data: String,
        /// Its media type, such as `audio/wav`.
        #[serde(rename = "mimeType")]
        mime_type: String,
    },
    /// A resource embedded whole: its address and its contents.
    Resource {
        /// The resource.
        resource: EmbeddedResource,
    },
}

/// The contents of a resource embedded in a [`ContentBlock::Resource`]: text,
/// or bytes base64-encoded.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(untagged)]
pub enum EmbeddedResource {
    /// A text resource.
    Text {
        /// Its address.
        uri: String,
        /// Its media type.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The text.
        text: String,
    },
    /// A binary resource.
    Blob {
        /// Its address.
        uri: String,
        /// Its media type.
        #[serde(rename = "mimeType", default, skip_serializing_if = "Option::is_none")]
        mime_type: Option<String>,
        /// The bytes, base64-encoded.
        blob: String,
    },
}

impl ContentBlock {
    /// A text block.
    pub fn text(text: impl Into<String>) -> Self {
        ContentBlock::Text { text: text.into() }
    }

    /// An image block from base64 data and a media type.
    pub fn image(base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Image {
            data: base64.into(),
            mime_type: mime_type.into(),
        }
    }

    /// A link to a resource.
    pub fn resource_link(uri: impl Into<String>, name: impl Into<String>) -> Self {
        ContentBlock::ResourceLink {
            uri: uri.into(),
            name: name.into(),
            description: None,
            mime_type: None,
        }
    }

    /// An audio block from base64 data and a media type.
    pub fn audio(base64: impl Into<String>, mime_type: impl Into<String>) -> Self {
        ContentBlock::Audio {
            data: base64.into(),
            mime_type: mime_type.into(),
        }
    }

    /// A text resource embedded whole.
    pub fn embedded_text(
        uri: impl Into<String>,
        mime_type: impl Into<String>,
        text: impl Into<String>,
    ) -> Self {
        ContentBlock::Resource {
            resource: EmbeddedResource::Text {
                uri: uri.into(),
                mime_type: Some(mime_type.into()),
                text: text.into(),
            },
        }
    }

    /// The text of a text block.
    pub fn as_text(&self) -> Option<&str> {
        match self {
            ContentBlock::Text { text } => Some(text),
            _ => None,
        }
    }
}

/// The render a tool gets without `render = …`: a string as itself, anything
/// else as compact JSON.
pub fn render_default<T: Serialize + ?Sized>(value: &T) -> Vec<ContentBlock> {
    let text = match serde_json::to_value(value) {
        Ok(serde_json::Value::String(text)) => text,
        Ok(other) => other.to_string(),
        Err(error) => format!("(the output could not be serialized: {error})"),
    };
    vec![ContentBlock::text(text)]
}

/// [`render_default`] of the value `value` serializes to, from that value:
/// no copy of it is made first.
pub(crate) fn render_value(value: &serde_json::Value) -> Vec<ContentBlock> {
    vec![ContentBlock::text(match value {
        serde_json::Value::String(text) => text.clone(),
        other => other.to_string(),
    })]
}

/// Whether the text [`render_value`] makes of `value` is over `limit`
/// characters, told without making it: a string's characters are counted
/// past the cheap bound of its bytes; any other value's JSON is counted as
/// it is written, and the count stops once over the limit.
pub(crate) fn rendering_over(value: &serde_json::Value, limit: usize) -> bool {
    match value {
        serde_json::Value::String(text) => text.len() > limit && text.chars().count() > limit,
        other => {
            let mut counted = Counted { chars: 0, limit };
            serde_json::to_writer(&mut counted, other).is_err() || counted.chars > limit
        }
    }
}

/// A writer that counts the characters of the UTF-8 written to it, and
/// refuses more once past `limit`.
struct Counted {
    chars: usize,
    limit: usize,
}

impl std::io::Write for Counted {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        // Every byte but a continuation byte starts a character.
        self.chars += bytes.iter().filter(|&&byte| byte & 0xC0 != 0x80).count();
        if self.chars > self.limit {
            return Err(std::io::Error::other("over the limit"));
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The text of every text block, joined by newlines.
pub fn joined_text(blocks: &[ContentBlock]) -> String {
    blocks
        .iter()
        .filter_map(ContentBlock::as_text)
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    /// Whether a value's rendering is over a limit is told in characters,
    /// as the rendering [`render_value`] makes would count them.
    #[test]
    fn a_rendering_is_measured_in_characters_without_making_it() {
        let chars = |value: &serde_json::Value| match &render_value(value)[..] {
            [ContentBlock::Text { text }] => text.chars().count(),
            other => panic!("one text block, not {other:?}"),
        };
        for value in [
            json!("héllo"),
            json!("ééééé"),
            json!({ "text": "日本語", "n": [1, 2, 3] }),
            json!([true, null, 1.5, "x"]),
            json!(12345),
        ] {
            let exact = chars(&value);
            assert!(!rendering_over(&value, exact), "{value} at {exact}");
            assert!(
                rendering_over(&value, exact - 1),
                "{value} at {}",
                exact - 1
            );
        }
        // A string of few characters but many bytes is within its limit.
        assert!(!rendering_over(&json!("éééé"), 4));
        // A large value is counted only up to its limit.
        let large = json!(vec!["word"; 100_000]);
        assert!(rendering_over(&large, 10));
    }
}
