set -u
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u +%FT%TZ
python3 device-bin/cublas_kernel.py 1024 2048 4096 2>&1 | tee $OUT/cublas_kernel.csv
for i in 1 2; do ./device-bin/10_tuned --solution -s 1024 2>&1 | tail -4; done
python3 device-bin/cublas_kernel.py 1024 2>&1 | tail -3
date -u +%FT%TZ
