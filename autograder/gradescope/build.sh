#!/usr/bin/env bash
# Builds the Gradescope autograder bundle: the course (its tracked files, as they are in the
# working tree, with the teacher's points file) with setup.sh and run_autograder at the root
# of the zip, where Gradescope looks for them. Usage: autograder/gradescope/build.sh [OUT.zip]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
course=$(cd "$here/../.." && pwd)
out=$(realpath -m "${1:-$course/target/gradescope-autograder.zip}")
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
cd "$course"
git ls-files -z --cached --others --exclude-standard |
    while IFS= read -r -d '' f; do [ -e "$f" ] && printf '%s\0' "$f"; done |
    xargs -0 cp --parents -t "$stage"
cp "$here/setup.sh" "$here/run_autograder" "$stage/"
chmod +x "$stage/setup.sh" "$stage/run_autograder"
mkdir -p "$(dirname "$out")"
rm -f "$out"
(cd "$stage" && zip -qr "$out" .)
echo "Gradescope autograder bundle: $out ($(du -h "$out" | cut -f1)); upload it as the assignment's autograder."
