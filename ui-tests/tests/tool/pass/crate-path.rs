//! `crate = …` names the path dsh-kit is reached by; each form works.
//! (`ui-tests/renamed` builds against dsh-kit under another name.)

use dsh_kit::Registry;
use dsh_kit::prelude::*;

#[derive(ToolArgs)]
#[dsh(crate = "dsh_kit")]
struct EchoArgs {
    /// What to echo
    text: String,
}

#[derive(ToolOutput)]
#[dsh(crate = ::dsh_kit)]
struct Echoed {
    text: String,
}

/// Echo a text.
#[tool(crate = "::dsh_kit", render = echo_text)]
async fn echo(args: EchoArgs) -> Echoed {
    Echoed { text: args.text }
}

#[render(crate = dsh_kit)]
fn echo_text(_args: &EchoArgs, out: &Echoed) -> Vec<ContentBlock> {
    vec![ContentBlock::text(out.text.clone())]
}

/// Shout a text.
#[tool(crate = dsh_kit)]
async fn shout(
    /// What to shout
    text: String,
) -> String {
    text.to_uppercase()
}

fn main() {
    let registry = Registry::new();
    registry.register::<echo>().unwrap();
    registry.register::<shout>().unwrap();
}
