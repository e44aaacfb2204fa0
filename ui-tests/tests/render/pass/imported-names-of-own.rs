//! A render may use a name an impure std import could bind, where the name
//! is the crate's own or the fn's own: only what names std's is refused.

use std::collections::BTreeMap;
use std::fmt::Write;
use std::fs;
use std::net::IpAddr;

use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

/// Read a file: `std::fs` is used here, outside any render.
#[tool(read_only, render = local_text)]
async fn read(args: ReadArgs) -> String {
    fs::read_to_string(&args.path).unwrap_or_default()
}

/// The fn's own names hide the imports: a parameter, a local, a closure.
#[render]
fn local_text(args: &ReadArgs, value: &String) -> Vec<ContentBlock> {
    let fs = value.len();
    let read_to_string = |text: &str| text.to_uppercase();
    let mut counts = BTreeMap::new();
    counts.insert(args.path.clone(), fs);
    let mut text = read_to_string(value);
    let _ = write!(text, " {counts:?}");
    vec![ContentBlock::text(text)]
}

/// Where a host listens.
#[derive(ToolOutput)]
struct Listen {
    ip: IpAddr,
}

/// Listen (pretend).
#[tool(render = listen_text)]
async fn listen() -> Listen {
    Listen { ip: IpAddr::from([127, 0, 0, 1]) }
}

/// A plain value of an impure std module, imported and matched on.
#[render]
fn listen_text(_: &ListenArgs, value: &Listen) -> Vec<ContentBlock> {
    let family = match value.ip {
        IpAddr::V4(_) => "IPv4",
        IpAddr::V6(_) => "IPv6",
    };
    vec![ContentBlock::text(format!("{} ({family})", value.ip))]
}

/// A module with a fn and a module of its own named like std's.
mod own {
    use dsh_kit::prelude::*;

    pub fn read_to_string(text: &str) -> String {
        text.to_uppercase()
    }

    pub mod fs {
        pub fn read(text: &str) -> usize {
            text.len()
        }
    }

    #[render]
    pub fn own_text(args: &super::ReadArgs, value: &String) -> Vec<ContentBlock> {
        let size = fs::read(value);
        vec![ContentBlock::text(format!("{} {size}", read_to_string(&args.path)))]
    }
}

/// A glob import of the crate's own module.
mod globbed {
    use super::own::*;
    use dsh_kit::prelude::*;

    #[render]
    pub fn globbed_text(_: &super::ReadArgs, value: &String) -> Vec<ContentBlock> {
        vec![ContentBlock::text(read_to_string(value))]
    }
}

fn main() {}
