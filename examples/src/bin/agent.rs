//! The `agent` example (`examples/agent.rs`) as a binary, so that `cargo
//! test` builds it before the agent's end-to-end test, which finds it as
//! `CARGO_BIN_EXE_dsh-agent`.

#[path = "../../agent.rs"]
mod example;

fn main() -> std::process::ExitCode {
    example::main()
}
