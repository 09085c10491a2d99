#!/usr/bin/env python3
"""cuBLAS FP32 (TF32 off) timed three ways at M×N×K shapes, to compare with the course's own
protocol, in which every timed call follows the upload of fresh inputs from the host (and the
host's check of the previous C), so the GPU idles between calls:

  pool    A and B in turn from a pool larger than the L2, calls back to back (peers_shapes.py's
          "fresh");
  upload  before every call A and B are copied from pinned host memory, then the device is
          synchronised: the course's order of events;
  idle    pool inputs, 15 ms of idle GPU before every call.

Device time by CUDA events around the matmul alone, median of REPS. One CSV line per shape.

    python3 cublas_course.py 1024x1024x1024 8192x8192x8192 ...
"""
import statistics
import sys
import time

import torch

dev = torch.device("cuda")
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
torch.set_float32_matmul_precision("highest")


def timed(before, call, reps):
    times = []
    for i in range(reps):
        before(i)
        s = torch.cuda.Event(enable_timing=True)
        e = torch.cuda.Event(enable_timing=True)
        s.record()
        call(i)
        e.record()
        e.synchronize()
        times.append(s.elapsed_time(e))
    return statistics.median(times), min(times), max(times)


def main():
    print("m,n,k,mode,reps,median_ms,gflops,best_ms,worst_ms", flush=True)
    for arg in sys.argv[1:]:
        m, n, k = (int(x) for x in arg.split("x"))
        reps = 20 if m * n * k <= 4096**3 else 12
        g = torch.Generator(device=dev).manual_seed(m * 7 + n * 3 + k)
        pair_bytes = 4 * (m * k + k * n)
        pool = min(max(3, (160 << 20) // pair_bytes + 1), 16)
        As = [torch.rand((m, k), device=dev, generator=g) * 2 - 1 for _ in range(pool)]
        Bs = [torch.rand((k, n), device=dev, generator=g) * 2 - 1 for _ in range(pool)]
        hA = As[0].cpu().pin_memory()
        hB = Bs[0].cpu().pin_memory()
        dA = torch.empty_like(As[0])
        dB = torch.empty_like(Bs[0])
        c = torch.empty((m, n), device=dev)
        f = 2.0 * m * n * k
        for _ in range(5):
            torch.matmul(As[0], Bs[0], out=c)
        torch.cuda.synchronize()

        def upload(i):
            dA.copy_(hA)
            dB.copy_(hB)
            torch.cuda.synchronize()

        def idle(i):
            torch.cuda.synchronize()
            time.sleep(0.015)

        modes = [
            ("pool", lambda i: None, lambda i: torch.matmul(As[i % pool], Bs[i % pool], out=c)),
            ("upload", upload, lambda i: torch.matmul(dA, dB, out=c)),
            ("idle", idle, lambda i: torch.matmul(As[i % pool], Bs[i % pool], out=c)),
        ]
        for name, before, call in modes:
            med, best, worst = timed(before, call, reps)
            print(f"{m},{n},{k},{name},{reps},{med:.4f},{f / med / 1e6:.0f},{best:.4f},{worst:.4f}",
                  flush=True)
        del As, Bs, hA, hB, dA, dB, c
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
