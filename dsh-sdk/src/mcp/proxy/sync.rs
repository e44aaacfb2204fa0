//! Registering a server's tools, and following its list as it changes.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::atomic::Ordering;
use std::sync::{Arc, PoisonError};

use serde_json::Value;

use crate::value::event::rawp::ToolStatus;

use super::events::ToolListDiff;
use super::forward::forwarding_tool;
use super::link::{Link, Proxied};

/// Registers the server's tools, replacing those that changed and
/// dropping those it no longer has; says how the registered list changed.
pub(super) async fn sync(link: &Arc<Link>) -> Result<ToolListDiff, rmcp::ServiceError> {
    let remote = link.peer().list_all_tools().await?;
    // The registry is only ever called with no lock of ours held: it
    // publishes the catalog to subscribers, who may ask this proxy.
    let known: BTreeMap<String, (Value, String)> = link
        .tools()
        .iter()
        .map(|(name, tool)| {
            (
                name.clone(),
                (tool.definition.clone(), tool.contract.clone()),
            )
        })
        .collect();
    link.forget_skipped();
    let mut skipped = Vec::new();
    let mut fresh = Vec::new();
    let mut seen = BTreeSet::new();
    let mut contracts = Vec::new();
    for tool in remote {
        let name = format!("{}{}", link.prefix, tool.name);
        seen.insert(name.clone());
        let definition = serde_json::to_value(&tool).unwrap_or(Value::Null);
        let contract = crate::export::digest::contract_hash(&definition);
        contracts.push((name.clone(), contract.clone()));
        if known
            .get(&name)
            .is_some_and(|(known, _)| *known == definition)
        {
            continue;
        }
        // A changed tool: the old one goes first, freeing the name.
        let old = link.tools().remove(&name);
        drop(old);
        match link
            .registry
            .register_dynamic(forwarding_tool(link, &name, &tool))
        {
            Ok(handle) => {
                let _ = link.registry.set_status(&name, ToolStatus::Available, None);
                let tool = Proxied {
                    definition,
                    contract,
                    _handle: handle.scoped(),
                };
                fresh.push((name, tool));
            }
            Err(error) => skipped.push(link.skip(&name, &tool, &error)),
        }
    }
    let (leftovers, now): (Vec<Proxied>, BTreeMap<String, String>) = {
        let mut tools = link.tools();
        if link.dropped.load(Ordering::SeqCst) {
            // The proxy went while this ran: nothing it registered stays.
            (
                fresh.into_iter().map(|(_, tool)| tool).collect(),
                BTreeMap::new(),
            )
        } else {
            tools.extend(fresh);
            let stale: Vec<String> = tools
                .keys()
                .filter(|name| !seen.contains(*name))
                .cloned()
                .collect();
            let leftovers = stale.iter().filter_map(|name| tools.remove(name)).collect();
            let now = tools
                .iter()
                .map(|(name, tool)| (name.clone(), tool.contract.clone()))
                .collect();
            (leftovers, now)
        }
    };
    // A status outlives its tool: a tool gone while its server was gone
    // must not leave `unavailable` behind for one of the same name.
    if link.gone().is_some() {
        for name in known.keys().filter(|name| !now.contains_key(*name)) {
            let _ = link.registry.set_status(name, ToolStatus::Available, None);
        }
    }
    // Unregistered here, with the lock released.
    drop(leftovers);
    for (name, hash) in contracts {
        link.check_contract(&name, &hash);
    }
    *link.skipped.lock().unwrap_or_else(PoisonError::into_inner) = skipped;
    if !link.dropped.load(Ordering::SeqCst) {
        link.sync_skills().await;
    }
    Ok(diff(&known, &now))
}

/// How the registered tools changed from `before` to `now` (name → contract).
fn diff(
    before: &BTreeMap<String, (Value, String)>,
    now: &BTreeMap<String, String>,
) -> ToolListDiff {
    ToolListDiff {
        added: now
            .keys()
            .filter(|name| !before.contains_key(*name))
            .cloned()
            .collect(),
        removed: before
            .keys()
            .filter(|name| !now.contains_key(*name))
            .cloned()
            .collect(),
        changed: now
            .iter()
            .filter(|(name, contract)| {
                before
                    .get(*name)
                    .is_some_and(|(_, before)| before != *contract)
            })
            .map(|(name, _)| name.clone())
            .collect(),
    }
}
