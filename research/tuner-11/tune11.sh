set -u
export LAB_ROOT=$PWD LAB_DEVICE=NVIDIA
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
date -u +%FT%TZ
for s in 1024 2048 4096; do
  ./device-bin/lab-bench tune --lesson 11 --size $s --time-ms 300 --write --out $OUT/tuned-11.csv 2>&1
done
./device-bin/lab-bench tune --lesson 10 --size 1024 --budget 6 --time-ms 300 --out $OUT/tuned-10.csv 2>&1
date -u +%FT%TZ
