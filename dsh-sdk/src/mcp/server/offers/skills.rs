//! Skills over MCP (the Skills extension, `io.modelcontextprotocol/skills`):
//! the registry's [`Skills`] as `skills/list` and `skills/get` entries, and
//! their files as resources (`resources/list` shows each `SKILL.md`,
//! `resources/read` reads every file).

use std::sync::Arc;

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rmcp::ErrorData;
use rmcp::model::{
    GetSkillResult, ListSkillsResult, Resource, ResourceContents, SKILLS_EXTENSION_ID,
    ServerCapabilities, Skill as McpSkill, SkillFrontmatter, SkillResource, SkillResources,
};
use serde_json::{Value, json};

use crate::skill::{SkillEntry, SkillReadError, Skills};

use crate::mcp::server::offers::cache;
use crate::mcp::server::offers::resources::{ReadResource, ResourceProvider};

/// The most skills one `skills/list` page holds; `nextCursor` leads on.
pub(crate) const SKILLS_PAGE: usize = 100;

/// Declares the extension, with no optional feature, when there are skills
/// to serve.
pub(crate) fn declare(skills: &Skills, capabilities: &mut ServerCapabilities) {
    if !skills.is_empty() {
        capabilities
            .extensions
            .get_or_insert_with(Default::default)
            .insert(SKILLS_EXTENSION_ID.to_owned(), Default::default());
    }
}

/// One page of `skills/list`: the skills after the one whose URI is
/// `cursor` (the last of the page before), in URI order.
pub(crate) fn list(skills: &Skills, cursor: Option<&str>) -> ListSkillsResult {
    let entries = skills.entries();
    let start = cursor.map_or(0, |after| {
        entries.partition_point(|entry| entry.uri.as_str() <= after)
    });
    let page: Vec<&SkillEntry> = entries.iter().skip(start).take(SKILLS_PAGE).collect();
    let next = (start + page.len() < entries.len())
        .then(|| page.last().map(|entry| entry.uri.clone()))
        .flatten();
    let mut result = ListSkillsResult::with_all_items(page.into_iter().map(to_mcp).collect())
        .with_ttl_ms(cache::TTL_MS)
        .with_cache_scope(cache::SCOPE);
    result.next_cursor = next;
    result
}

/// `skills/get`: the entry of the skill at `uri`; `-32602` when none is
/// served there.
pub(crate) fn get(skills: &Skills, uri: &str) -> Result<GetSkillResult, ErrorData> {
    let Some(entry) = skills.get(uri) else {
        return Err(ErrorData::invalid_params(
            format!("no skill is served at `{uri}`: `skills/list` says which are"),
            Some(json!({ "uri": uri })),
        ));
    };
    Ok(GetSkillResult::new(to_mcp(&entry))
        .with_ttl_ms(cache::TTL_MS)
        .with_cache_scope(cache::SCOPE))
}

/// An entry as the extension's wire type.
pub(crate) fn to_mcp(entry: &SkillEntry) -> McpSkill {
    let mut extra = entry.front_matter.clone();
    let name = extra.remove("name");
    let description = extra.remove("description");
    let text = |value: Option<Value>| match value {
        Some(Value::String(text)) => text,
        _ => String::new(),
    };
    let mut front_matter = SkillFrontmatter::new(text(name), text(description));
    front_matter.extra = extra;
    let resources = match &entry.files {
        Some(files) => SkillResources::Files(
            files
                .iter()
                .map(|file| SkillResource::new(file.uri.clone(), file.digest.clone(), file.size))
                .collect(),
        ),
        None => SkillResources::Dynamic,
    };
    McpSkill::new(entry.uri.clone(), front_matter, resources)
}

/// The skills' files as resources: each `SKILL.md` listed (named and
/// described by its front matter), every file read.
pub(crate) struct SkillFiles(pub(crate) Skills);

impl ResourceProvider for SkillFiles {
    fn resources(&self) -> Vec<Resource> {
        self.0
            .entries()
            .into_iter()
            .map(|entry| {
                Resource::new(entry.uri.clone(), entry.name())
                    .with_description(entry.description())
                    .with_mime_type("text/markdown")
            })
            .collect()
    }

    fn read<'a>(&'a self, uri: &'a str) -> ReadResource<'a> {
        Box::pin(async move {
            let read = self.0.read(uri).await?;
            Some(match read {
                Ok(contents) => Ok(vec![match std::str::from_utf8(&contents.bytes) {
                    Ok(text) => ResourceContents::TextResourceContents {
                        uri: uri.to_owned(),
                        mime_type: Some(contents.mime_type.clone()),
                        text: text.to_owned(),
                        meta: None,
                    },
                    Err(_) => ResourceContents::BlobResourceContents {
                        uri: uri.to_owned(),
                        mime_type: Some(contents.mime_type.clone()),
                        blob: STANDARD.encode(&contents.bytes),
                        meta: None,
                    },
                }]),
                Err(SkillReadError::NotFound(uri)) => Err(ErrorData::resource_not_found(
                    format!("no skill file at `{uri}`"),
                    Some(json!({ "uri": uri })),
                )),
                Err(error) => Err(ErrorData::internal_error(error.to_string(), None)),
            })
        })
    }
}

/// The provider for `skills`, shared.
pub(crate) fn files(skills: &Skills) -> Arc<dyn ResourceProvider> {
    Arc::new(SkillFiles(skills.clone()))
}
