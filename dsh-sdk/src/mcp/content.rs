//! Content blocks between dsh and MCP.
//!
//! [`ContentBlock`] serializes to MCP's wire shape already, so a block goes
//! across through serde (text, image and audio, the common ones, are made
//! directly, to the same block); what dsh has no block for comes back as
//! text that says what it was.

use rmcp::model::ContentBlock as McpBlock;
#[cfg(feature = "proxy")]
use rmcp::model::ResourceContents;

use crate::value::content::ContentBlock;

/// A dsh block as an MCP block. Text, image and audio, the same fields
/// both ways, are made directly; the others through their JSON.
pub(crate) fn to_mcp(block: &ContentBlock) -> McpBlock {
    match block {
        ContentBlock::Text { text } => return McpBlock::text(text.as_str()),
        ContentBlock::Image { data, mime_type } => {
            return McpBlock::image(data.as_str(), mime_type.as_str());
        }
        ContentBlock::Audio { data, mime_type } => {
            return McpBlock::audio(data.as_str(), mime_type.as_str());
        }
        ContentBlock::ResourceLink { .. } | ContentBlock::Resource { .. } => {}
    }
    serde_json::to_value(block)
        .and_then(serde_json::from_value)
        .unwrap_or_else(|_| {
            McpBlock::text(crate::value::content::joined_text(std::slice::from_ref(
                block,
            )))
        })
}

#[cfg(feature = "proxy")]
/// An MCP block as a dsh block.
pub(crate) fn from_mcp(block: &McpBlock) -> ContentBlock {
    if let Ok(block) = serde_json::to_value(block).and_then(serde_json::from_value) {
        return block;
    }
    match block {
        McpBlock::Audio(audio) => ContentBlock::text(format!(
            "(audio, {}, {} base64 characters)",
            audio.mime_type,
            audio.data.len()
        )),
        McpBlock::Resource(embedded) => match &embedded.resource {
            ResourceContents::TextResourceContents { uri, text, .. } => {
                ContentBlock::text(format!("{uri}:\n{text}"))
            }
            ResourceContents::BlobResourceContents { uri, mime_type, .. } => {
                ContentBlock::text(format!(
                    "(a binary resource, {}: {uri})",
                    mime_type.as_deref().unwrap_or("of unknown type")
                ))
            }
            other => unreadable(other),
        },
        other => unreadable(other),
    }
}

#[cfg(feature = "proxy")]
/// Content of a kind dsh does not know, as its JSON.
fn unreadable(content: &impl serde::Serialize) -> ContentBlock {
    ContentBlock::text(
        serde_json::to_string(content).unwrap_or_else(|_| "(unreadable content)".to_owned()),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The blocks made directly are those their JSON reads as.
    #[test]
    fn a_block_made_directly_is_the_one_its_json_reads_as() {
        for block in [
            ContentBlock::text("hi \"there\"\n"),
            ContentBlock::image("aGk=", "image/png"),
            ContentBlock::audio("AAAA", "audio/wav"),
        ] {
            let through_json: McpBlock =
                serde_json::from_value(serde_json::to_value(&block).unwrap()).unwrap();
            assert_eq!(to_mcp(&block), through_json);
            assert_eq!(
                serde_json::to_value(to_mcp(&block)).unwrap(),
                serde_json::to_value(&block).unwrap()
            );
        }
    }

    #[test]
    fn blocks_cross_both_ways() {
        for block in [
            ContentBlock::text("hi"),
            ContentBlock::image("aGk=", "image/png"),
            ContentBlock::resource_link("file:///etc/hosts", "hosts"),
            ContentBlock::audio("AAAA", "audio/wav"),
            ContentBlock::embedded_text("file:///a.txt", "text/plain", "A"),
        ] {
            assert_eq!(from_mcp(&to_mcp(&block)), block);
        }
        assert_eq!(
            from_mcp(&McpBlock::audio("AAAA", "audio/wav")),
            ContentBlock::audio("AAAA", "audio/wav")
        );
    }
}
