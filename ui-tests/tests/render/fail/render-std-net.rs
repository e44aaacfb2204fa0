use dsh_kit::prelude::*;

#[derive(Deserialize, JsonSchema)]
struct ReadArgs {
    path: String,
}

#[render]
fn read_text(args: &ReadArgs, value: &String) -> Vec<ContentBlock> {
    let online = std::net::TcpStream::connect("127.0.0.1:80").is_ok();
    vec![ContentBlock::text(format!("{}: {value} {online}", args.path))]
}

fn main() {}
