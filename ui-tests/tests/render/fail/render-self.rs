use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

struct Renderer;

impl Renderer {
    #[render]
    fn read_text(&self, value: &String) -> Vec<ContentBlock> {
        vec![ContentBlock::text(value.clone())]
    }
}

fn main() {}
