#!/usr/bin/env python3
"""cuBLAS FP32 (TF32 off) on the same inputs as host.c, with the same error measures.

    python3 cublas.py M N K [uniform|wide] [reps] [seed]

The matrices come from the same counter-based hash as host.c (numpy, uint64 arithmetic),
the errors are taken at the same 4096 sampled (i, j) against float64 sums on the host, and
also over every element against torch's float64 product on the GPU.
"""
import sys
import numpy as np
try:
    import torch
except ImportError:  # make() alone works without torch
    torch = None

GOLD = np.uint64(0x9E3779B97F4A7C15)


def mix64(z):
    z = z ^ (z >> np.uint64(30))
    z = z * np.uint64(0xBF58476D1CE4E5B9)
    z = z ^ (z >> np.uint64(27))
    z = z * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return z


def h(seed, stream, idx):
    return mix64(np.uint64(seed) * GOLD + (idx << np.uint64(2)) + np.uint64(stream))


def val(z):
    return ((z >> np.uint64(40)).astype(np.float64) * 2.0**-23 - 1.0).astype(np.float32)


def wexp(z):
    return (z % np.uint64(41)).astype(np.int64) - 20


def make(M, N, K, wide, seed):
    with np.errstate(over="ignore"):
        A = np.empty((M, K), np.float32)
        for r0 in range(0, M, 1024):
            r1 = min(M, r0 + 1024)
            idx = np.arange(r0 * K, r1 * K, dtype=np.uint64)
            A[r0:r1] = val(h(seed, 0, idx)).reshape(r1 - r0, K)
        B = np.empty((K, N), np.float32)
        for r0 in range(0, K, 1024):
            r1 = min(K, r0 + 1024)
            idx = np.arange(r0 * N, r1 * N, dtype=np.uint64)
            B[r0:r1] = val(h(seed, 1, idx)).reshape(r1 - r0, N)
        if wide:
            A *= np.ldexp(np.float32(1), wexp(h(seed, 2, np.arange(M, dtype=np.uint64))))[:, None].astype(np.float32)
            B *= np.ldexp(np.float32(1), wexp(h(seed, 3, np.arange(N, dtype=np.uint64))))[None, :].astype(np.float32)
        s = np.arange(4096, dtype=np.uint64)
        base = np.uint64(seed) * GOLD ^ np.uint64(0x5A5A5A5A5A5A5A5A)
        si = (mix64(base ^ (np.uint64(2) * s)) % np.uint64(M)).astype(np.int64)
        sj = (mix64(base ^ (np.uint64(2) * s + np.uint64(1))) % np.uint64(N)).astype(np.int64)
    return A, B, si, sj


def main():
    M, N, K = (int(x) for x in sys.argv[1:4])
    mode = sys.argv[4] if len(sys.argv) > 4 else "uniform"
    reps = int(sys.argv[5]) if len(sys.argv) > 5 else 10
    seed = int(sys.argv[6]) if len(sys.argv) > 6 else 7
    A, B, si, sj = make(M, N, K, mode == "wide", seed)
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    a = torch.from_numpy(A).cuda()
    b = torch.from_numpy(B).cuda()
    for _ in range(3):
        c = a @ b
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        e0 = torch.cuda.Event(enable_timing=True)
        e1 = torch.cuda.Event(enable_timing=True)
        e0.record()
        c = a @ b
        e1.record()
        torch.cuda.synchronize()
        ts.append(e0.elapsed_time(e1))
    ms = float(np.median(ts))
    C = c.cpu().numpy()
    A64, B64 = A.astype(np.float64), B.astype(np.float64)
    ex = np.empty(4096)
    ab = np.empty(4096)
    for s0 in range(0, 4096, 256):
        r = A64[si[s0:s0 + 256]]             # 256 x K
        col = B64[:, sj[s0:s0 + 256]].T      # 256 x K
        p = r * col
        ex[s0:s0 + 256] = p.sum(1)
        ab[s0:s0 + 256] = np.abs(p).sum(1)
    d = np.abs(C[si, sj].astype(np.float64) - ex)
    err_s = d.max() / np.abs(ex).max()
    cwise = (d / np.where(ab > 0, ab, 1)).max()
    c64 = a.double() @ b.double()
    err_full = ((c.double() - c64).abs().max() / c64.abs().max()).item()
    print(f"CUBLAS,M={M},N={N},K={K},mode={mode},ms={ms:.4f},tflops={2*M*N*K/ms*1e-9:.2f},"
          f"err_samples={err_s:.3e},err_full={err_full:.3e},cwise={cwise:.3e},"
          f"A00={A[0,0]!r},sample0=({si[0]},{sj[0]}),device={torch.cuda.get_device_name()}",
          flush=True)


if __name__ == "__main__":
    main()
