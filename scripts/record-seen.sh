#!/usr/bin/env bash
# Records what a student sees (results/seen/): `cargo lab NN` on the untouched starter and on
# the reference answer, for the lessons named (default: every lesson with a chapter's "What you
# will see"). The chapters include these files; run this after a change to what grading prints.
# Usage: scripts/record-seen.sh [01 02 ...]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet --bin lab
lessons=("$@")
if [ ${#lessons[@]} -eq 0 ]; then
    for f in lessons/*.rs; do
        key=$(basename "$f" | sed -E 's/^([0-9]+[a-z]?)_.*/\1/')
        [ "$key" = 00 ] || lessons+=("$key")
    done
fi
for key in "${lessons[@]}"; do
    # A failing starter exits non-zero: its verdict is what is recorded. The progress lines on
    # stderr are not.
    target/release/lab grade "$key" >"results/seen/${key}_starter.txt" || true
    target/release/lab --kernels solutions grade "$key" >"results/seen/${key}_passing.txt" ||
        { cat "results/seen/${key}_passing.txt"; echo "lesson $key: the reference did not pass"; exit 1; }
    echo "recorded lesson $key"
done
