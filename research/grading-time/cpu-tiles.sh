#!/bin/bash
# Lessons 06-08 and 11's references on PoCL with the tiles a GPU takes and with smaller ones,
# interleaved, five rounds; each line one lesson program's run (its median of the timed calls).
cd "$(dirname "$0")/../.."
B=target/release
out=research/grading-time/cpu-tiles.csv
echo "date,device,lesson,size,defines,round,gflops" > $out
dev=$(clinfo -l 2>/dev/null | grep -m1 Device | sed 's/.*Device #0: //')
run() { # bin size round defines...
  local bin=$1 s=$2 r=$3; shift 3
  local args=(); for d in "$@"; do args+=(-D "$d"); done
  g=$($B/$bin --solution --no-compare -s $s "${args[@]}" 2>&1 | awk '/^  speed/ {print $2}')
  echo "$(date -u +%FT%TZ),$dev,$bin,$s,$*,$r,$g" >> $out
}
for r in 1 2 3 4 5; do
 for s in 256 512; do
  for t in "TSM=128 TSN=128 TSK=16" "TSM=32 TSN=32 TSK=16"; do
   run 06_register_tiling $s $r $t WPTM=8 WPTN=8
   run 07_vectorization $s $r $t WPTM=8 WPTN=8 WIDTH=4
   run 08_padding $s $r $t WPTM=8 WPTN=8 WIDTH=4 PAD=2
  done
  for t in "BM=64 BN=64 WM=32 WN=32" "BM=32 BN=32 WM=16 WN=16"; do
   run 11_matrix_units $s $r $t BK=16 STAGES=2
  done
 done
done
