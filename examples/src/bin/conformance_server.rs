//! The `conformance_server` example (`examples/conformance_server.rs`) as a
//! binary, so that `cargo test` builds it before the test of replicas behind
//! nginx, which finds it as `CARGO_BIN_EXE_dsh-conformance-server`.

#[path = "../../conformance_server.rs"]
mod example;

fn main() -> std::process::ExitCode {
    example::main()
}
