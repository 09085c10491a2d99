# Lesson 11 as the course runs it (the blocks and the split of K chosen by by_shape, no
# defines given), lesson 10 beside it (the lesson program's own comparison line), and
# cuBLAS's kernel (CUPTI, fresh inputs after 15 ms idle, as research/kernel-time/), at small,
# long-K, square and rectangular shapes, in one device command.
set -u
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
date -u +%FT%TZ
SHAPES=${SHAPES:-"1024x1024x1024 1024x1024x4096 1024x1024x8192 1000x1000x8000 512x512x2048 512x512x8192 768x768x4096 2048x2048x2048 4096x4096x4096 8192x8192x1024 1024x8192x8192 12288x4096x3072 8192x8192x8192"}
python3 device-bin/cublas_kernel.py --fresh-only $SHAPES 2>&1 | grep -v "Warn\|warn" | tee $OUT/cublas.csv
for s in $SHAPES; do
  IFS=x read m n k <<< "$s"
  echo "== 11_matrix_units $m $n $k"
  timeout 150 ./device-bin/11_matrix_units --solution -m $m -n $n -k $k 2>&1 \
    | grep -E "defines|check|time |speed |vs lesson|rror"
done
date -u +%FT%TZ
