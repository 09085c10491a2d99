set -u
mkdir -p /etc/OpenCL/vendors; echo /usr/local/nvidia/lib64/libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd
export LAB_ROOT=$PWD
B=$PWD/device-bin/lab
date -u; nvidia-smi --query-gpu=name,driver_version --format=csv
for d in pow2 asked; do
  echo "=== lab grade 04 (cargo lab), wrong only at $d, nothing asked"
  timeout 120 $B grade 04 --kernels device-bin/$d 2>&1 | grep -E "WRONG|PASSED|FAIL|ok " | head -4
done
echo "=== lab grade 10 on the reference: every tuner combination"
timeout 200 $B grade 10 --kernels solutions 2>&1 | grep -cE "^  ok"
