#!/bin/bash
# Sourced by calls 23 and 32 from the repository root, after D (the lab binary) is set: makes
# the four wrong kernels in $K and starts the log $L with the device, the date and the sums.
# The wrong kernels: the references with one store edited (one element of C 1 % off where
# the condition holds), made here from solutions/.
K=$(mktemp -d)
wrong() {  # name, cond
  mkdir -p "$K/k04-$1" "$K/k11-$1"
  sed "s/    C\[row \* N + col\] = acc;/    C[row * N + col] = ($2 \&\& col == 5) ? acc * 1.01f : acc;/" \
    solutions/04_naive_kernel.cl > "$K/k04-$1/04_naive_kernel.cl"
  sed "s/if (col < N) C\[row \* N + col\] = v.x;/if (col < N) C[row * N + col] = ($2 \&\& col == 6) ? v.x * 1.01f : v.x;/" \
    solutions/11_matrix_units.cl > "$K/k11-$1/11_matrix_units.cl"
}
wrong asked 'M == 1024 \&\& N == 1024 \&\& K == 1024'
wrong pow2 'M == N \&\& N == K \&\& M >= 256 \&\& (M \& (M - 1)) == 0'
export LAB_ROOT=$PWD
export CUDA_CACHE_DISABLE=1
L=$OUT/log.txt
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv | tee $L
date -u | tee -a $L
sha1sum $D/lab $K/k*/*.cl | tee -a $L
grep -h '1.01f' $K/k*/*.cl | tee -a $L
