//! dsh-kit's behaviour tests, in one test binary so the suite links once:
//! a module per concern, folders for the MCP server and client (`mcp/`)
//! and the model providers (`provider/`), and the fixtures they share
//! (`support/`).

mod support;

mod arguments;
mod batch;
mod call;
mod catalog;
#[cfg(feature = "code")]
mod code;
mod dynamic;
mod elicit_url;
mod events;
mod failure;
mod hardening;
mod icons;
mod limits;
mod log;
mod lower;
mod mcp;
mod output_type;
mod paths;
mod pipeline;
mod playground;
mod principal;
mod properties;
mod provider;
mod purity;
mod read_back;
mod registry;
mod replay;
mod search;
mod skills;
