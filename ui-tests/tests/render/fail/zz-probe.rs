use dsh_sdk::prelude::*;

fn read_text(_args: &String, _value: &String) -> Vec<ContentBlock> {
    vec![]
}

fn probe(args: &String, value: &String) -> Vec<ContentBlock> {
    <read_text as dsh_sdk::RenderFn<String, String, Vec<ContentBlock>>>::call(args, value)
}

fn main() {
    let _ = probe;
}
