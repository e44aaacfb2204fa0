//! The skills of a proxied server, served again by the proxy's registry:
//! their entries as the server lists them, their files read from it when
//! asked.

use std::collections::BTreeSet;
use std::sync::{Arc, PoisonError, Weak};

use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use rmcp::ServiceError;
use rmcp::model::{
    ErrorCode, ReadResourceRequestParams, ResourceContents, Skill as McpSkill, SkillResources,
};

use crate::skill::{
    ReadSkill, SkillContents, SkillEntry, SkillFileEntry, SkillReadError, SkillSource,
};

use super::link::Link;

/// The most bytes one file of a proxied skill may hold when read, as the
/// extension's per-skill limit.
const MAX_FILE_BYTES: usize = crate::skill::MAX_SKILL_BYTES as usize;

/// A skill of the proxied server.
struct RemoteSkill {
    link: Weak<Link>,
    entry: SkillEntry,
}

impl SkillSource for RemoteSkill {
    fn entry(&self) -> SkillEntry {
        self.entry.clone()
    }

    fn read<'a>(&'a self, uri: &'a str) -> ReadSkill<'a> {
        Box::pin(async move {
            if !self.holds(uri) {
                return None;
            }
            let failed = |reason: String| SkillReadError::Failed {
                uri: uri.to_owned(),
                reason,
            };
            let Some(link) = self.link.upgrade() else {
                return Some(Err(failed("the proxy is gone".into())));
            };
            if let Some(reason) = link.gone() {
                return Some(Err(failed(format!(
                    "the MCP server `{}` is gone: {reason}",
                    link.server
                ))));
            }
            let read = link
                .peer()
                .read_resource(ReadResourceRequestParams::new(uri))
                .await;
            Some(match read {
                Ok(result) => contents(uri, result.contents).map_err(failed),
                Err(ServiceError::McpError(error))
                    if error.code == ErrorCode::INVALID_PARAMS
                        || error.code == ErrorCode::RESOURCE_NOT_FOUND =>
                {
                    Err(SkillReadError::NotFound(uri.to_owned()))
                }
                Err(error) => Err(failed(error.to_string())),
            })
        })
    }
}

impl RemoteSkill {
    /// Whether `uri` is one of its files: in its manifest, or, for a skill
    /// made on demand, under its directory.
    fn holds(&self, uri: &str) -> bool {
        match &self.entry.files {
            Some(files) => files.iter().any(|file| file.uri == uri),
            None => self
                .entry
                .uri
                .strip_suffix(crate::skill::SKILL_MD)
                .is_some_and(|root| uri.starts_with(root)),
        }
    }
}

/// The first contents the server gave for `uri`, as bytes.
fn contents(uri: &str, contents: Vec<ResourceContents>) -> Result<SkillContents, String> {
    let Some(first) = contents.into_iter().next() else {
        return Err(format!("the server read nothing at `{uri}`"));
    };
    let (mime_type, bytes) = match first {
        ResourceContents::TextResourceContents {
            mime_type, text, ..
        } => (mime_type, text.into_bytes()),
        ResourceContents::BlobResourceContents {
            mime_type, blob, ..
        } => {
            let bytes = STANDARD
                .decode(blob)
                .map_err(|error| format!("the server's base64 does not decode: {error}"))?;
            (mime_type, bytes)
        }
        _ => return Err("the server gave contents of a kind a skill file cannot hold".into()),
    };
    if bytes.len() > MAX_FILE_BYTES {
        return Err(format!("over {MAX_FILE_BYTES} bytes"));
    }
    Ok(SkillContents::new(
        mime_type.unwrap_or_else(|| "application/octet-stream".into()),
        bytes,
    ))
}

/// The entry of a skill the server listed.
fn entry(skill: McpSkill) -> SkillEntry {
    let mut front_matter = skill.frontmatter.extra;
    front_matter.insert("name".into(), skill.frontmatter.name.into());
    front_matter.insert("description".into(), skill.frontmatter.description.into());
    let files = match skill.resources {
        SkillResources::Files(files) => Some(
            files
                .into_iter()
                .map(|file| SkillFileEntry::new(file.uri, file.digest, file.size))
                .collect(),
        ),
        _ => None,
    };
    SkillEntry::new(skill.uri, front_matter, files)
}

impl Link {
    /// Serves the skills the server lists now in place of those it listed
    /// before: none when it does not declare the Skills extension. A skill
    /// that breaks the extension's rules, or whose URI a skill of this
    /// registry's own holds, is left out.
    pub(super) async fn sync_skills(self: &Arc<Self>) {
        let peer = self.peer();
        let declared = peer
            .peer_info()
            .is_some_and(|info| info.capabilities.supports_skills());
        let listed = match declared {
            true => match peer.list_all_skills().await {
                Ok(listed) => listed,
                Err(error) => {
                    tracing::warn!(server = %self.server, %error, "MCP proxy: skills/list failed");
                    return;
                }
            },
            false => Vec::new(),
        };
        let mut skills = self.skills.lock().unwrap_or_else(PoisonError::into_inner);
        let ours: BTreeSet<String> = skills.iter().map(|(uri, _)| uri.clone()).collect();
        let mut fresh = Vec::new();
        for skill in listed {
            if let Err(error) = skill.validate() {
                tracing::warn!(server = %self.server, uri = %skill.uri, %error, "MCP proxy: skill left out");
                continue;
            }
            if !ours.contains(&skill.uri) && self.registry.skills().get(&skill.uri).is_some() {
                tracing::warn!(server = %self.server, uri = %skill.uri, "MCP proxy: skill left out, a skill of this registry has its URI");
                continue;
            }
            let uri = skill.uri.clone();
            let handle = self.registry.skills().add(RemoteSkill {
                link: Arc::downgrade(self),
                entry: entry(skill),
            });
            fresh.push((uri, handle));
        }
        // The handles of skills no longer listed go; those re-listed were
        // replaced by their new entries already.
        *skills = fresh;
    }
}
