//! The owned forms of text a tool takes and returns; an error may borrow.

use std::borrow::Cow;
use std::sync::Arc;

use dsh_kit::prelude::*;

#[derive(ToolArgs)]
struct LabelArgs {
    text: Cow<'static, str>,
    tag: Box<str>,
}

#[derive(ToolOutput)]
struct Label {
    text: Arc<str>,
    tag: Cow<'static, str>,
}

/// Label a text.
#[tool]
async fn label(args: LabelArgs) -> Label {
    Label {
        text: Arc::from(args.text.as_ref()),
        tag: Cow::Owned(args.tag.into()),
    }
}

/// Greet someone.
#[tool]
async fn greet(
    name: String,
    title: Cow<'static, str>,
    nickname: Box<str>,
    place: Arc<str>,
) -> Result<Cow<'static, str>, &'static str> {
    if name.is_empty() {
        return Err("no name");
    }
    Ok(Cow::Owned(format!("{title} {name} ({nickname}) of {place}")))
}

/// Shout.
#[tool]
async fn shout(text: String) -> Box<str> {
    text.to_uppercase().into_boxed_str()
}

/// Name a place.
#[tool]
async fn place(name: String) -> Arc<str> {
    Arc::from(name)
}

fn main() {
    let _ = (
        <label as Tool>::DEFINITION,
        <greet as Tool>::DEFINITION,
        <shout as Tool>::DEFINITION,
        <place as Tool>::DEFINITION,
    );
}
