# Lesson 11 (with lesson 10 beside it) and cuBLAS's kernel, kernel time against kernel time, at the shapes
# of issue 32. Lessons: their programs on the course's path (fresh inputs every call, each
# checked, the median of profiling-event times); cuBLAS: its kernels from the CUDA profiler
# on fresh inputs copied from the host after 15 ms idle (the course's way).
set -u
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u +%FT%TZ
SHAPES="1024x1024x1024 2048x2048x2048 4096x4096x4096 8192x8192x8192 4095x4095x4095 8191x8191x8191 8192x8192x1024 1024x8192x8192 12288x4096x3072"
python3 device-bin/cublas_kernel.py --fresh-only $SHAPES 2>&1 | grep -v "Warn\|warn" | tee $OUT/cublas.csv
for s in $SHAPES; do
  IFS=x read m n k <<< "$s"
  echo "== 11_matrix_units $m $n $k"
  # Its program also times lesson 10's reference at the same shape ("vs lesson 10").
  timeout 120 ./device-bin/11_matrix_units --solution -m $m -n $n -k $k 2>&1 | grep -E "defines|check|time |speed |vs lesson|rror"
done
date -u +%FT%TZ
