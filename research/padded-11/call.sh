# Lesson 11 with K and N padded by the host to multiples of 4 (exec::run_padded), at ragged
# shapes and beside the aligned ones, and cuBLAS's kernel (CUPTI, fresh inputs after 15 ms
# idle, as research/kernel-time/) at the same shapes, in one device command.
set -u
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u +%FT%TZ
SHAPES="1023x1023x1023 1024x1024x1024 2047x2047x2047 2048x2048x2048 4095x4095x4095 4094x4094x4094 4096x4096x4096 4097x4097x4097 3001x2999x4093 8191x8191x8191 8192x8192x8192"
python3 device-bin/cublas_kernel.py --fresh-only ${CUBLAS_SHAPES:-$SHAPES} 2>&1 | grep -v "Warn\|warn" | tee $OUT/cublas.csv
for s in $SHAPES; do
  IFS=x read m n k <<< "$s"
  echo "== 11_matrix_units $m $n $k"
  timeout 120 ./device-bin/11_matrix_units --solution -m $m -n $n -k $k 2>&1 | grep -E "defines|check|time |speed |vs lesson|rror"
done
date -u +%FT%TZ
