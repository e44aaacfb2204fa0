#!/usr/bin/env bash
# Compile time of many tools: how long a crate of N tools takes to build with
# `#[tool]`, against the same N tools written with rmcp's `#[tool]` and
# `#[tool_router]`, and against plain fns with serde and schemars derives
# and no framework at all.
#
# It writes three throwaway crates into `target/compile-time/`, builds their
# dependencies once (one shared target directory, the workspace's
# `Cargo.lock`, offline), then times `touch src/lib.rs && cargo build` (a
# clean debug build of the crate alone) for each crate in turn, RUNS times,
# interleaved (dsh, rmcp, plain, dsh, rmcp, plain, ...), so that a machine
# that slows down slows all three alike. It prints each crate's median and
# the ratios dsh/rmcp and dsh/plain.
#
# Usage: benches/compile-time/run.sh [TOOLS] [RUNS]   (defaults: 100 and 5)
set -euo pipefail

tools=${1:-100}
runs=${2:-5}
root=$(cd "$(dirname "$0")/../.." && pwd)
out=$root/target/compile-time
mkdir -p "$out"
export CARGO_TARGET_DIR=$out/target
# The build as a user's crate would see it: no flags inherited from the caller.
unset RUSTFLAGS CARGO_BUILD_RUSTFLAGS
# A clean build of the crate each time, not an incremental one.
export CARGO_INCREMENTAL=0

manifest() { # name, dependencies
    cat <<TOML
[package]
name = "$1"
version = "0.0.0"
edition = "2024"
publish = false

[workspace]

[lib]
path = "src/lib.rs"

[dependencies]
$2
TOML
}

# One args struct per tool: a documented string and an optional count.
args_struct() { # index, derives
    cat <<RS
/// The arguments of tool $1.
#[derive($2)]
pub struct Args$1 {
    /// The text to work on
    pub text: String,
    /// How many times, at most
    pub count: Option<u32>,
}

RS
}

# One tool fn, the same in every crate but for its attribute.
tool_fn() { # index, attribute line (may be empty)
    echo "/// Repeat a text, tool $1."
    [ -n "$2" ] && echo "$2"
    cat <<RS
pub async fn tool_$1(args: Args$1) -> String {
    args.text.repeat(args.count.unwrap_or(1) as usize)
}

RS
}

write_dsh() {
    local dir=$out/dsh_tools
    mkdir -p "$dir/src"
    # The args structs derive as in the other two crates, so that only the
    # tools differ.
    manifest dsh_tools "dsh-kit = { path = \"$root/dsh-sdk\" }
serde = { version = \"1\", features = [\"derive\"] }
schemars = \"1\"" >"$dir/Cargo.toml"
    {
        echo "//! $tools tools written with dsh's \`#[tool]\`."
        echo "#![allow(missing_docs)]"
        echo "use dsh_kit::prelude::*;"
        echo
        for ((i = 0; i < tools; i++)); do
            args_struct "$i" "serde::Deserialize, schemars::JsonSchema"
            tool_fn "$i" "#[tool(read_only)]"
        done
        echo "/// A registry holding every tool."
        echo "pub fn registry() -> Registry {"
        echo "    let registry = Registry::new();"
        for ((i = 0; i < tools; i++)); do
            echo "    registry.register::<tool_$i>().unwrap();"
        done
        echo "    registry"
        echo "}"
    } >"$dir/src/lib.rs"
}

write_rmcp() {
    local dir=$out/rmcp_tools
    mkdir -p "$dir/src"
    manifest rmcp_tools "rmcp = { version = \"3.11.0\", default-features = false, features = [\"server\", \"macros\"] }
serde = { version = \"1\", features = [\"derive\"] }
schemars = \"1\"" >"$dir/Cargo.toml"
    {
        echo "//! $tools tools written with rmcp's \`#[tool]\` and \`#[tool_router]\`."
        echo "#![allow(missing_docs)]"
        echo "use rmcp::handler::server::router::tool::ToolRouter;"
        echo "use rmcp::handler::server::wrapper::Parameters;"
        echo
        for ((i = 0; i < tools; i++)); do
            args_struct "$i" "serde::Deserialize, schemars::JsonSchema"
        done
        cat <<RS
/// The server holding every tool.
#[derive(Clone)]
pub struct Tools {
    tool_router: ToolRouter<Self>,
}

#[rmcp::tool_router]
impl Tools {
    /// A server with every tool.
    pub fn new() -> Self {
        Self { tool_router: Self::tool_router() }
    }

RS
        for ((i = 0; i < tools; i++)); do
            cat <<RS
    /// Repeat a text, tool $i.
    #[rmcp::tool(annotations(read_only_hint = true))]
    async fn tool_$i(&self, Parameters(args): Parameters<Args$i>) -> String {
        args.text.repeat(args.count.unwrap_or(1) as usize)
    }

RS
        done
        echo "}"
        echo
        echo "#[rmcp::tool_handler(router = self.tool_router)]"
        echo "impl rmcp::ServerHandler for Tools {}"
    } >"$dir/src/lib.rs"
}

write_plain() {
    local dir=$out/plain_tools
    mkdir -p "$dir/src"
    manifest plain_tools "serde = { version = \"1\", features = [\"derive\"] }
schemars = \"1\"
serde_json = \"1\"" >"$dir/Cargo.toml"
    {
        echo "//! $tools tools as plain fns: serde and schemars derives, no framework."
        echo "#![allow(missing_docs)]"
        echo
        for ((i = 0; i < tools; i++)); do
            args_struct "$i" "serde::Deserialize, schemars::JsonSchema"
            tool_fn "$i" ""
        done
        echo "/// Every tool's name and input schema."
        echo "pub fn schemas() -> Vec<(&'static str, schemars::Schema)> {"
        echo "    vec!["
        for ((i = 0; i < tools; i++)); do
            echo "        (\"tool_$i\", schemars::schema_for!(Args$i)),"
        done
        echo "    ]"
        echo "}"
    } >"$dir/src/lib.rs"
}

crates=(dsh_tools rmcp_tools plain_tools)
write_dsh
write_rmcp
write_plain

# Dependencies once: the same versions the workspace locks, nothing fetched.
for name in "${crates[@]}"; do
    cp "$root/Cargo.lock" "$out/$name/Cargo.lock"
    echo "building $name and its dependencies once" >&2
    cargo build --offline --quiet --manifest-path "$out/$name/Cargo.toml"
done

now() { date +%s.%N; }
declare -A times
for ((run = 1; run <= runs; run++)); do
    for name in "${crates[@]}"; do
        touch "$out/$name/src/lib.rs"
        start=$(now)
        cargo build --offline --quiet --manifest-path "$out/$name/Cargo.toml"
        end=$(now)
        secs=$(echo "$end - $start" | bc -l)
        times[$name]="${times[$name]:-} $secs"
        printf 'run %d %-12s %.2f s\n' "$run" "$name" "$secs" >&2
    done
done

median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {if (NR % 2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }
for name in "${crates[@]}"; do
    declare "median_$name=$(echo "${times[$name]}" | median)"
done
printf '\n%d tools, %d interleaved runs each, median of a clean debug build of the crate alone:\n' "$tools" "$runs"
printf '  dsh   %.2f s\n  rmcp  %.2f s\n  plain %.2f s\n' "$median_dsh_tools" "$median_rmcp_tools" "$median_plain_tools"
printf '  dsh/rmcp  %.2f\n  dsh/plain %.2f\n' \
    "$(echo "$median_dsh_tools / $median_rmcp_tools" | bc -l)" \
    "$(echo "$median_dsh_tools / $median_plain_tools" | bc -l)"
