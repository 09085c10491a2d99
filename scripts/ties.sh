#!/usr/bin/env bash
# Grades the reference answer as a class of ten students and records how each ranked beside the
# reference (results/ties/): every one multiplies the reference's own code, so every one should
# be a tie. A ratio outside the tie band here is the ranking's error, not a student's.
#
# Usage: scripts/ties.sh OUT.txt [LESSON ...]     (default lessons: 02 05)
# Environment: LAB_TEACHER (default target/release/lab-teacher), LAB_DEVICE as for the course,
# STUDENTS (default 10), BUSY=1 to keep one core busy with another program meanwhile, LAB
# (default target/release/lab) for the device list.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$1
shift
lessons=("$@")
[ ${#lessons[@]} -gt 0 ] || lessons=(02 05)
teacher=${LAB_TEACHER:-target/release/lab-teacher}
# CLASS_DIR keeps the class folder (its gradebook is rewritten after each student).
class=${CLASS_DIR:-$(mktemp -d)}
mkdir -p "$class"
trap '[ -n "${CLASS_DIR:-}" ] || rm -rf "$class"; [ -z "${busy:-}" ] || kill "$busy" 2>/dev/null || true' EXIT
for n in $(seq -w 1 "${STUDENTS:-10}"); do
    cp -r solutions "$class/student$n"
done
if [ "${BUSY:-0}" = 1 ]; then
    # Another program keeping one core busy, as on a student's laptop.
    (while :; do :; done) &
    busy=$!
fi
args=()
for l in "${lessons[@]}"; do args+=(--lesson "$l"); done
started=$(date -u +%Y-%m-%dT%H:%M:%SZ)
"$teacher" class "$class" "${args[@]}" >"$class/table.txt" 2>"$class/progress.txt"
{
    echo "# The reference graded as ${STUDENTS:-10} students, lessons ${lessons[*]}, started $started"
    echo "# devices (LAB_DEVICE=${LAB_DEVICE:-}):"
    "${LAB:-target/release/lab}" devices 2>&1 | sed 's/^/#   /'
    echo "# busy core: ${BUSY:-0}"
    cat "$class/table.txt"
    echo
    cat "$class/gradebook.csv"
} >"$out"
ties=$(grep -c ',true$' "$class/gradebook.csv" || true)
rows=$(($(wc -l <"$class/gradebook.csv") - 1))
echo "$ties of $rows gradings a tie with the reference; recorded in $out"
