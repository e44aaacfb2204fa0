# Sourced by the conformance runs here: installs a pinned suite and starts
# examples/conformance_server.rs, killed when the sourcing script exits.
# Needs `root` (the repository) set.

# Node.js and npm, from apt when missing.
need_node() {
    if ! command -v node > /dev/null || ! command -v npm > /dev/null; then
        local sudo=""
        [ "$(id -u)" -eq 0 ] || sudo="sudo"
        $sudo apt-get update
        $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends nodejs npm
    fi
    node --version
}

# install_suite PINS DIR: the suite pinned by PINS/package-lock.json, with
# the `fs` shim, installed under DIR.
install_suite() {
    local pins=$1 dir=$2
    mkdir -p "$dir"
    cp "$pins"/package.json "$pins"/package-lock.json "$root"/.ci/conformance/fs-globsync.mjs "$root"/.ci/conformance/fs-with-glob.mjs "$dir"/
    (cd "$dir" && timeout 600 npm ci --no-audit --no-fund --loglevel=error)
}

# start_server DIR: builds and starts the conformance server, its log in
# DIR/server.log; sets `url` once it listens.
start_server() {
    local dir=$1
    cargo build --locked --example conformance_server
    rm -f "$dir/server.url"
    "$root/target/debug/examples/conformance_server" --http 127.0.0.1:0 > "$dir/server.url" 2> "$dir/server.log" &
    server=$!
    trap 'kill "$server" 2> /dev/null || true; wait "$server" 2> /dev/null || true' EXIT
    # The server prints its URL once it listens.
    for _ in $(seq 100); do
        [ -s "$dir/server.url" ] && break
        kill -0 "$server" 2> /dev/null || { cat "$dir/server.log" >&2; exit 1; }
        sleep 0.1
    done
    url=$(head -n 1 "$dir/server.url")
    [ -n "$url" ] || { echo "the conformance server printed no URL" >&2; cat "$dir/server.log" >&2; exit 1; }
}

# suite_failed DIR STATUS: shows the suite's output and the server's log.
suite_failed() {
    local dir=$1 status=$2
    cat "$dir/results.txt"
    echo "--- server log ---"
    cat "$dir/server.log"
    echo "the MCP conformance suite failed (exit status $status)" >&2
    exit 1
}
