//! [`ContentBlock`]: what the model sees of a result.

use std::borrow::Cow;

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
    vec![ContentBlock::text(rendered_text(value).into_owned())]
}

/// The one text block of [`render_value`]: a string as it is, anything
/// else as JSON.
pub(crate) fn rendered_text(value: &serde_json::Value) -> Cow<'_, str> {
    match value {
        serde_json::Value::String(text) => Cow::Borrowed(text),
        other => Cow::Owned(other.to_string()),
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
