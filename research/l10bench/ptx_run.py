#!/usr/bin/env python3
"""Runs the PTX that NVIDIA's OpenCL compiler made of lesson 10's kernel through CUDA
(CuPy), so that Nsight Compute can profile it: `ncu ... python3 ptx_run.py X.ptx TSM TSN WPTM WPTN [SIZE]`.
OpenCL's %envreg registers (work offsets) are replaced by 0; the result is checked at
sample points against float64.
"""
import re
import sys

import cupy as cp
import numpy as np

path, tsm, tsn, wptm, wptn = sys.argv[1], *map(int, sys.argv[2:6])
size = int(sys.argv[6]) if len(sys.argv) > 6 else 4096
ptx = open(path, "rb").read().rstrip(b"\0").decode()
ptx = re.sub(r"%envreg\d+", "0", ptx).replace(", texmode_independent", "")
fixed = path + ".cuda.ptx"
open(fixed, "w").write(ptx)
k = cp.RawModule(path=fixed).get_function("matmul")
m = n = kk = size
rng = cp.random.default_rng(1)
a = rng.random((m, kk), dtype=cp.float32) * 2 - 1
b = rng.random((kk, n), dtype=cp.float32) * 2 - 1
c = cp.full((m, n), cp.nan, dtype=cp.float32)
grid = ((n + tsn - 1) // tsn, (m + tsm - 1) // tsm, 1)
block = (tsn // wptn, tsm // wptm, 1)
args = (np.int32(m), np.int32(n), np.int32(kk), a, b, c)
for _ in range(3):
    k(grid, block, args)
cp.cuda.Device().synchronize()
start, end = cp.cuda.Event(), cp.cuda.Event()
start.record()
reps = 20
for _ in range(reps):
    k(grid, block, args)
end.record()
end.synchronize()
ms = cp.cuda.get_elapsed_time(start, end) / reps
idx = np.random.default_rng(2).integers(0, size, (256, 2))
an, bn, cn = cp.asnumpy(a).astype(np.float64), cp.asnumpy(b).astype(np.float64), cp.asnumpy(c)
err = max(abs(cn[i, j] - an[i] @ bn[:, j]) for i, j in idx)
print(f"{path}: {size}: {ms:.4f} ms, {2 * size**3 / ms / 1e9:.1f} TFLOP/s (CUDA launch of the OpenCL PTX), max abs err {err:.2e}")
