# The kernel before and after the part offsets (z) at its head, alternated, at the shapes
# where each block shape is chosen: does the head cost the loop anything?
set -u
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u +%FT%TZ
for s in ${SHAPES:-1024x1024x1024 4096x4096x4096}; do
  IFS=x read m n k <<< "$s"
  for round in 1 2 3; do
    for v in k_old k_new; do
      echo "== $v $m $n $k round $round"
      timeout 100 ./device-bin/11_matrix_units --kernels device-bin/$v --no-compare -m $m -n $n -k $k 2>&1 \
        | grep -E "defines|check|time |rror"
    done
  done
done
date -u +%FT%TZ
