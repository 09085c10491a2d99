#!/bin/bash
# Call 6: call 5 lost the head of its log (too many files under $OUT), and its second profile
# failed (get_num_groups comes from %envreg in the PTX; GROUPM now takes Mp as an argument).
# Variants of gemm_s8 again (each checked at 1000x777x513, then 8192^3 with 7 moduli), with
# CPMAP=1 (cp.async copy order without the shared-memory conflicts that call 5's profile flagged);
# the fastest + REC4 at 4096/8192 x 6/7/8 moduli, cuBLAS; Nsight Compute on the fastest and
# on GROUPM=16. At most 5 files under $OUT.
D=research/ozaki-12
export PYTHONUNBUFFERED=1 PATH=$PATH:/usr/local/cuda/bin
L=$OUT/log.txt
date -u | tee $L
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv 2>&1 | tee -a $L
echo "ncu: $(which ncu) $(ncu --version 2>&1 | tail -1)" | tee -a $L
gcc -O2 -DHAVE_CL_H -o /tmp/host $D/host.c /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 -lm 2>&1 | tee -a $L
nvcc -O2 -o /tmp/drv $D/prof/drv.cu -lcuda 2>&1 | tail -3 | tee -a $L
H=/tmp/host
V=/tmp/variants.txt; : > $V
for o in "" "-D GROUPM=8" "-D GROUPM=16" "-D GROUPM=16 -D CPMAP=1" "-D WM=64 -D WN=64 -D GROUPM=16" \
         "-D WM=64 -D WN=64 -D GROUPM=16 -D CPMAP=1" "-D GROUPM=16 -D CPMAP=1 -D BK=32 -D STAGES=4" \
         "-D GROUPM=16 -D SWZ=1 -D STAGES=3"; do
  echo "== '$o'" | tee -a $L
  OZAKI_LOG=1 timeout 30 $H 1000 777 513 7 uniform 2 7 1 "$o" 2>&1 | grep -E -A3 "RESULT|rror|entry function 'gemm_s8'" | grep -E "RESULT|rror|Used" | tee -a $L
  timeout 40 $H 8192 8192 8192 7 uniform 8 7 0 "$o" 2>&1 | grep -E "RESULT|rror" | tee -a $L | tee -a $V
done
BEST=$(python3 - $V <<'PY'
import re, sys
best = (0, "")
for line in open(sys.argv[1]):
    m = re.search(r'opts="([^"]*)".*gemm_tops=([0-9.]+)', line)
    if m and float(m.group(2)) > best[0]:
        best = (float(m.group(2)), m.group(1))
print(best[1])
PY
)
echo "fastest GEMM: '$BEST'" | tee -a $L
FIN="$BEST -D REC4=1"
timeout 30 $H 1000 777 513 7 uniform 2 7 1 "$FIN" 2>&1 | grep -E "RESULT|rror" | tee -a $L > /tmp/fin.txt
timeout 30 $H 1000 777 513 8 wide 2 7 1 "$FIN" 2>&1 | grep -E "RESULT|rror" | tee -a $L >> /tmp/fin.txt
ok=$(python3 - /tmp/fin.txt <<'PY'
import re, sys
t = open(sys.argv[1]).read().splitlines()
good = len(t) == 2 and all("bad_ares=0,bad_bres=0,bad_gemm=0" in l and float(re.search(r"err_full=([-0-9.e+]+)", l).group(1)) < 1e-6 for l in t)
print(1 if good else 0)
PY
)
[ "$ok" = 1 ] || FIN="$BEST"
echo "sweep with: '$FIN'" | tee -a $L
for s in 4096 8192; do for nm in 6 7 8; do
  timeout 40 $H $s $s $s $nm uniform 10 7 0 "$FIN" 2>&1 | grep -E "RESULT|rror" | tee -a $L
done; done
timeout 90 python3 $D/cublas.py 8192 8192 8192 uniform 20 7 2>&1 | tail -1 | tee -a $L
timeout 60 python3 $D/cublas.py 4096 4096 4096 uniform 20 7 2>&1 | tail -1 | tee -a $L
date -u | tee -a $L
prof() { tag=$1; o=$2
  case "$o" in *"WM=64 -D WN=64"*) T=128;; *) T=256;; esac
  OZAKI_PTX=/tmp/$tag.bin timeout 30 $H 256 256 256 7 uniform 1 7 0 "$o" > /dev/null 2>&1
  tr -d "\000" < /tmp/$tag.bin | sed -E "s/%envreg[0-9]+/0/g" > /tmp/$tag.ptx
  echo "== profile $tag '$o' (threads $T)" | tee -a $L
  timeout 60 /tmp/drv /tmp/$tag.ptx 8192 10 128 128 $T 2>&1 | tee -a $L
  timeout 150 ncu -f --set full -k gemm_s8 -c 1 -o /tmp/$tag /tmp/drv /tmp/$tag.ptx 8192 1 128 128 $T 2>&1 | tail -2 | tee -a $L
  ncu -i /tmp/$tag.ncu-rep --page details > $OUT/$tag-details.txt 2>&1
  ncu -i /tmp/$tag.ncu-rep --page source --csv --print-source sass > /tmp/$tag-source.csv 2>&1
  ncu -i /tmp/$tag.ncu-rep --page raw --csv > /tmp/$tag-raw.csv 2>&1
  python3 research/perf-11/scripts/prof/stalls.py /tmp/$tag-source.csv > $OUT/$tag-stalls.txt 2>&1
  python3 - /tmp/$tag-raw.csv <<'PY' 2>&1 | tee -a $L
import csv, sys
r = list(csv.reader(open(sys.argv[1]))); h, u, v = r[0], r[1], r[2]
want = ["gpu__time_duration.sum", "sm__pipe_tensor_op_imma_cycles_active.avg.pct_of_peak_sustained_active",
        "sm__inst_executed_pipe_tensor_op_imma.avg.pct_of_peak_sustained_active", "dram__bytes_read.sum",
        "dram__bytes.sum.per_second", "lts__t_sectors_srcunit_tex_op_read.sum", "lts__t_sectors_srcunit_tex_op_read.sum.per_second",
        "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum.pct_of_peak_sustained_elapsed",
        "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "smsp__inst_executed.sum"]
for w in want:
    if w in h: i = h.index(w); print("RAW,%s,%s,%s" % (w, v[i], u[i]))
PY
  grep -E "Duration|SM Frequency|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|Compute \(SM\) Throughput|Issue Slots Busy|No Eligible|Eligible Warps|Active Warps Per|Warp Cycles Per Issued|Registers Per|Achieved Occupancy|Theoretical Occupancy|L2 Hit Rate|Block Limit Reg" $OUT/$tag-details.txt | tee -a $L
  head -14 $OUT/$tag-stalls.txt | tee -a $L
  grep -A4 "beyond the ideal" $OUT/$tag-stalls.txt | tee -a $L
}
prof p_best "$BEST"
[ "$BEST" = "-D GROUPM=16" ] || prof p_g16 "-D GROUPM=16"
date -u | tee -a $L
