#!/usr/bin/env python3
"""Error of the prototype's C over every element (call 9).

    python3 fullerr.py M N K [uniform|wide] [seed] C.bin

C.bin: the M x N float32 result that host.c writes with OZAKI_DUMP=C.bin. The inputs are made
again by cublas.make (the same hash as host.c); the reference is torch's float64 product on the
GPU, as cublas.py's err_full: max |C - C64| / max |C64|.
"""
import os
import sys
import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cublas import make  # noqa: E402

M, N, K = (int(x) for x in sys.argv[1:4])
mode, seed, path = sys.argv[4], int(sys.argv[5]), sys.argv[6]
A, B, _, _ = make(M, N, K, mode == "wide", seed)
C = np.fromfile(path, dtype=np.float32).reshape(M, N)
c64 = torch.from_numpy(A).cuda().double() @ torch.from_numpy(B).cuda().double()
c = torch.from_numpy(C).cuda().double()
err = ((c - c64).abs().max() / c64.abs().max()).item()
print(f"FULLERR,M={M},N={N},K={K},mode={mode},err_full={err:.3e},nonfinite={int((~torch.isfinite(c)).sum())}",
      flush=True)
