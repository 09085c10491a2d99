#!/usr/bin/env python3
"""One cuBLAS SGEMM (TF32 off) at SIZE, for Nsight Compute: `ncu ... python3 cublas_one.py 4096`."""
import sys
import torch
torch.backends.cuda.matmul.allow_tf32 = False
torch.set_float32_matmul_precision("highest")
s = int(sys.argv[1]) if len(sys.argv) > 1 else 4096
a = torch.rand(s, s, device="cuda") * 2 - 1
b = torch.rand(s, s, device="cuda") * 2 - 1
for _ in range(3):
    c = a @ b
torch.cuda.synchronize()
from torch.profiler import profile, ProfilerActivity
with profile(activities=[ProfilerActivity.CUDA]) as prof:
    c = a @ b
    torch.cuda.synchronize()
for e in prof.key_averages():
    print("kernel:", e.key)
