#!/usr/bin/env bash
# The whole submission graded as the teacher's engines grade it, by e38e21f (`lab autograde`,
# the figure issue 31 starts from) and by this checkout (`lab-teacher autograde`), alternating,
# twice each. Expects e38e21f built in /tmp/old (git worktree add /tmp/old e38e21f;
# cargo build --release --workspace there) and this checkout built in release.
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-/tmp/gt/against-e38e21f.csv}
mkdir -p "$(dirname "$out")"
echo "round,build,seconds,score,lessons" > "$out"
for round in 1 2; do
  for b in old new; do
    if [ $b = old ]; then cd /tmp/old; cmd="target/release/lab autograde"; else cd "$here"; cmd="target/release/lab-teacher autograde"; fi
    res=/tmp/gt/$b-$round.json
    s=$(date +%s.%N)
    $cmd --submission solutions --results "$res" > /tmp/gt/$b-$round.log 2>&1
    e=$(date +%s.%N)
    read -r score lessons < <(python3 -c "import json;r=json.load(open('$res'));print(r['score'], len(r.get('tests',[])))" 2>/dev/null || echo "? ?")
    echo "$round,$b,$(echo "$e - $s" | bc),$score,$lessons" >> "$out"
  done
done
