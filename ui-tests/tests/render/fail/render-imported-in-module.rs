use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct WaitArgs {
    millis: u64,
}

mod views {
    use std::time::Duration;

    use dsh_kit::prelude::*;
    use tokio::time::sleep;

    #[render]
    pub fn wait_text(args: &super::WaitArgs, _: &String) -> Vec<ContentBlock> {
        drop(sleep(Duration::from_millis(args.millis)));
        vec![ContentBlock::text(format!("waited {} ms", args.millis))]
    }
}

fn main() {}
