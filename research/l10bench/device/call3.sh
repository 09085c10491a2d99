#!/bin/bash
# perf-10, device call 3: coalesced A loads (v7) and an XOR-swizzled A tile (v8).
cd "$(dirname "$0")"
export LD_LIBRARY_PATH=$PWD/lib:$LD_LIBRARY_PATH PYTHONUNBUFFERED=1
mkdir -p ev
timeout 300 ./l10bench jobs3.txt ev 200 > $OUT/bench_stdout.txt 2> ev/bench_stderr.txt
cp ev/bench.csv $OUT/bench.csv
for f in ev/*.ptx; do n=$(basename $f .ptx); tr -d '\000' < $f > ev/$n.clean.ptx; ptxas -v -arch=sm_90a -o ev/$n.cubin ev/$n.clean.ptx > ev/$n.ptxas.txt 2>&1; done
tar czf $OUT/evidence.tgz ev
cut -d, -f4,6,9-12 $OUT/bench.csv
