#!/usr/bin/env python3
"""cuBLAS FP32 (TF32 off) and CUTLASS 3xTF32 at M×N×K, timed by CUDA events (median of REPS),
each way the course's protocol could differ from back-to-back calls:

  pool      A and B in turn from a pool larger than the L2, back-to-back (peers_shapes.py's fresh)
  gapN      as pool, the device idle N µs before each timed call
  host      every timed call on new A, B drawn on the host and copied to new device tensors, C a
            new tensor of NaN, just before the call (the course's per-call inputs)
  host+prev as host, with an untimed call on the pool's inputs enqueued just before the timed one

One CSV line per shape, peer and way on stdout.

    python3 protocol_peers.py --cutlass NAME=lib.so ... 1024x1024x1024 ...
"""
import argparse
import ctypes
import statistics
import time

import torch

dev = torch.device("cuda")
REPS = 40


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cutlass", action="append", default=[], metavar="NAME=LIB")
    p.add_argument("--gaps", default="300,2000,20000")
    p.add_argument("shapes", nargs="+")
    args = p.parse_args()
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")
    libs = []
    for spec in args.cutlass:
        name, path = spec.split("=", 1)
        lib = ctypes.CDLL(path)
        lib.gemm_3xtf32.argtypes = [ctypes.c_int] * 3 + [ctypes.c_void_p] * 3
        lib.gemm_3xtf32.restype = ctypes.c_int
        if not lib.b_is_row_major():
            continue
        libs.append((name, lib))
    print("m,n,k,who,way,median_ms,gflops,min_ms", flush=True)
    for arg in args.shapes:
        m, n, k = (int(x) for x in arg.split("x"))
        pair_bytes = 4 * (m * k + k * n)
        pool = min(max(3, (160 << 20) // pair_bytes + 1), 16)
        As = [torch.rand((m, k), device=dev) * 2 - 1 for _ in range(pool)]
        Bs = [torch.rand((k, n), device=dev) * 2 - 1 for _ in range(pool)]
        c = torch.empty((m, n), device=dev)
        f = 2.0 * m * n * k
        peers = [("cublas-fp32", lambda a, b, c: torch.matmul(a, b, out=c))]
        for name, lib in libs:
            peers.append((name, lambda a, b, c, lib=lib:
                          lib.gemm_3xtf32(m, n, k, a.data_ptr(), b.data_ptr(), c.data_ptr())))
        ways = ["pool"] + [f"gap{g}" for g in args.gaps.split(",")] + ["host", "host+prev"]
        for who, call in peers:
            for _ in range(5):
                call(As[0], Bs[0], c)
            torch.cuda.synchronize()
            for way in ways:
                times = []
                for i in range(REPS):
                    a, b, cc = As[i % pool], Bs[i % pool], c
                    if way.startswith("host"):
                        a = (torch.rand((m, k)) * 2 - 1).to(dev)
                        b = (torch.rand((k, n)) * 2 - 1).to(dev)
                        cc = torch.full((m, n), float("nan"), device=dev)
                        torch.cuda.synchronize()
                    if way.startswith("gap"):
                        time.sleep(int(way[3:]) * 1e-6)
                    if way == "host+prev":
                        call(As[i % pool], Bs[i % pool], c)
                    s = torch.cuda.Event(enable_timing=True)
                    e = torch.cuda.Event(enable_timing=True)
                    s.record()
                    call(a, b, cc)
                    e.record()
                    e.synchronize()
                    times.append(s.elapsed_time(e))
                    if way.startswith("host"):
                        cc.cpu()
                med = statistics.median(times)
                print(f"{m},{n},{k},{who},{way},{med:.4f},{f / med / 1e6:.0f},{min(times):.4f}", flush=True)
        del As, Bs, c
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
