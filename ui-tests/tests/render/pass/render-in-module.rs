//! A render imported from another module, and two tools sharing one render.

use dsh_kit::prelude::*;

mod views {
    use dsh_kit::prelude::*;

    #[render]
    pub fn count_text(_: &super::CountArgs, value: &usize) -> Vec<ContentBlock> {
        vec![ContentBlock::text(format!("{value}"))]
    }

    #[render]
    pub fn number_text(_: &super::Count2Args, value: &usize) -> Vec<ContentBlock> {
        vec![ContentBlock::text(format!("{value}"))]
    }
}

use views::count_text;

/// Count lines.
#[tool(render = count_text)]
async fn count(text: String) -> usize {
    text.lines().count()
}

/// Count words.
#[tool(render = views::number_text)]
async fn count2(text: String) -> usize {
    text.split_whitespace().count()
}

fn main() {
    let _ = (<count as Tool>::DEFINITION, <count2 as Tool>::DEFINITION);
}
