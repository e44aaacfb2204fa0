#!/usr/bin/env bash
# The cold debug build of the same three tools served over streamable HTTP,
# with dsh-kit (`mcp`) and with rmcp alone: crates compiled, wall seconds
# and CPU seconds (user + system, the figure that holds when the machine
# is busy with other work), each in a target directory of its own, then
# the ratios.
#
#   bash benches/build/run.sh        (from the checkout; takes minutes)
#
# Both build with this checkout's Cargo.lock, so they compile the same
# versions and need no registry look-up. The target directories are under
# target/build-bench/ and are removed first (a cold build is the point).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
out="$root/target/build-bench"
rm -rf "$out"
mkdir -p "$out"

declare -A seconds cpu crates
for side in rmcp dsh; do
    cp "$root/Cargo.lock" "$here/$side/Cargo.lock"
    target="$out/$side"
    times="$out/$side.time"
    /usr/bin/time -f '%e %U %S' -o "$times" \
        cargo build --offline --quiet --manifest-path "$here/$side/Cargo.toml" --target-dir "$target"
    read -r wall user system < "$times"
    seconds[$side]=$wall
    cpu[$side]=$(echo "$user + $system" | bc)
    # One artefact per compiled crate (build scripts counted once).
    crates[$side]=$(cargo tree --offline --manifest-path "$here/$side/Cargo.toml" -e normal,build --prefix none --no-dedupe \
        | sed 's/ (\*)$//' | sort -u | wc -l)
    rm -f "$here/$side/Cargo.lock"
    printf '%-5s %4d crates  %7.1f s wall  %7.1f s CPU\n' "$side" "${crates[$side]}" "${seconds[$side]}" "${cpu[$side]}"
done
printf 'ratio (dsh / rmcp): %.2fx wall, %.2fx CPU, %.2fx crates\n' \
    "$(echo "${seconds[dsh]} / ${seconds[rmcp]}" | bc -l)" \
    "$(echo "${cpu[dsh]} / ${cpu[rmcp]}" | bc -l)" \
    "$(echo "${crates[dsh]} / ${crates[rmcp]}" | bc -l)"
