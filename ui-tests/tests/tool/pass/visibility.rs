mod tools {
    use dsh_kit::prelude::*;

    /// A public tool: its type and generated args are public too.
    #[tool]
    pub async fn shout(text: String) -> String {
        text.to_uppercase()
    }

    /// A crate-visible tool.
    #[tool]
    pub(crate) async fn whisper(text: String) -> String {
        text.to_lowercase()
    }

    /// A private tool, registered from inside its module.
    #[tool]
    async fn mumble() {}

    pub fn register_private(registry: &dsh_kit::Registry) -> dsh_kit::ToolHandle {
        registry.register::<mumble>().unwrap()
    }
}

use dsh_kit::Registry;

fn main() {
    let registry = Registry::new();
    let _shout = registry.register::<tools::shout>().unwrap();
    let _whisper = registry.register::<tools::whisper>().unwrap();
    let _mumble = tools::register_private(&registry);
    let _ = tools::ShoutArgs { text: String::new() };
}
