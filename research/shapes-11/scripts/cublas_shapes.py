#!/usr/bin/env python3
"""cuBLAS SGEMM (TF32 off) at M×N×K shapes, square or not: device time by CUDA events, median
of REPS, warm (the same A and B every call) and fresh (A and B taken in turn from a pool larger
than the L2, as the course times itself); max relative error against float64 at 4096 sampled
elements. One line per shape: m,n,k,warm_ms,warm_gflops,fresh_ms,fresh_gflops,max_rel_err.

    python3 cublas_shapes.py 1024x1024x1024 8192x1024x8192 ...
"""
import statistics
import sys

import torch

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.set_float32_matmul_precision("highest")
dev = torch.device("cuda")
REPS = 50


def timed(fn, reps):
    times = []
    for i in range(reps):
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        fn(i)
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times)


print("m,n,k,warm_ms,warm_gflops,fresh_ms,fresh_gflops,max_rel_err", flush=True)
for arg in sys.argv[1:]:
    m, n, k = (int(x) for x in arg.split("x"))
    g = torch.Generator(device=dev).manual_seed(m * 7 + n * 3 + k)
    # A pool of inputs larger than the H100's 50 MB L2 (at least 3 pairs).
    pair_bytes = 4 * (m * k + k * n)
    pool = max(3, (160 << 20) // pair_bytes + 1)
    pool = min(pool, 16)
    As = [torch.rand((m, k), device=dev, generator=g) * 2 - 1 for _ in range(pool)]
    Bs = [torch.rand((k, n), device=dev, generator=g) * 2 - 1 for _ in range(pool)]
    c = torch.empty((m, n), device=dev)
    for _ in range(10):
        torch.matmul(As[0], Bs[0], out=c)
    torch.cuda.synchronize()
    warm = timed(lambda i: torch.matmul(As[0], Bs[0], out=c), REPS)
    fresh = timed(lambda i: torch.matmul(As[i % pool], Bs[i % pool], out=c), REPS)
    torch.matmul(As[0], Bs[0], out=c)
    rows = torch.randint(0, m, (4096,), device=dev, generator=g)
    cols = torch.randint(0, n, (4096,), device=dev, generator=g)
    exact = (As[0][rows].double() * Bs[0][:, cols].double().t()).sum(dim=1)
    err = ((c[rows, cols].double() - exact).abs().max() / exact.abs().max()).item()
    f = 2.0 * m * n * k
    print(f"{m},{n},{k},{warm:.4f},{f / warm / 1e6:.0f},{fresh:.4f},{f / fresh / 1e6:.0f},{err:.3g}", flush=True)
    del As, Bs, c
    torch.cuda.empty_cache()
