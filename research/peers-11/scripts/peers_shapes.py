#!/usr/bin/env python3
"""Lesson 11's peers at M×N×K shapes, each timed two ways on the same inputs: cuBLAS FP32 (TF32
off), cuBLAS with TF32 on (one TF32 product: the unit's practical speed at TF32 accuracy), and
CUTLASS's 3xTF32 GEMM (the same algorithm as lesson 11) in every build given with --cutlass.

Device time by CUDA events, median of REPS. *warm*: the same A and B every call. *fresh*: A and B
taken in turn from a pool larger than the L2, the way the course times its lessons. Errors: max
|C - exact| / max |exact| over 4096 sampled elements, exact in float64, the same elements of the
same A and B for every peer. One CSV line per shape and peer on stdout.

    python3 peers_shapes.py --cutlass NAME=lib.so ... 1024x1024x1024 8192x1024x8192 ...
"""
import argparse
import ctypes
import statistics

import torch

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


def set_tf32(on):
    torch.backends.cuda.matmul.allow_tf32 = on
    torch.backends.cudnn.allow_tf32 = on
    torch.set_float32_matmul_precision("high" if on else "highest")


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--cutlass", action="append", default=[], metavar="NAME=LIB")
    p.add_argument("shapes", nargs="+")
    args = p.parse_args()
    libs = []
    for spec in args.cutlass:
        name, path = spec.split("=", 1)
        lib = ctypes.CDLL(path)
        lib.gemm_3xtf32.argtypes = [ctypes.c_int] * 3 + [ctypes.c_void_p] * 3
        lib.gemm_3xtf32.restype = ctypes.c_int
        libs.append((name, lib, bool(lib.b_is_row_major())))
    print("m,n,k,who,warm_ms,warm_gflops,fresh_ms,fresh_gflops,max_rel_err", flush=True)
    for arg in args.shapes:
        m, n, k = (int(x) for x in arg.split("x"))
        g = torch.Generator(device=dev).manual_seed(m * 7 + n * 3 + k)
        pair_bytes = 4 * (m * k + k * n)
        pool = min(max(3, (160 << 20) // pair_bytes + 1), 16)
        As = [torch.rand((m, k), device=dev, generator=g) * 2 - 1 for _ in range(pool)]
        Bs = [torch.rand((k, n), device=dev, generator=g) * 2 - 1 for _ in range(pool)]
        c = torch.empty((m, n), device=dev)
        rows = torch.randint(0, m, (4096,), device=dev, generator=g)
        cols = torch.randint(0, n, (4096,), device=dev, generator=g)
        exact = (As[0][rows].double() * Bs[0][:, cols].double().t()).sum(dim=1)
        f = 2.0 * m * n * k

        def report(who, call):
            for _ in range(5):
                call(0)
            torch.cuda.synchronize()
            warm = timed(lambda i: call(0), REPS)
            fresh = timed(lambda i: call(i % pool), REPS)
            c.fill_(float("nan"))
            call(0)
            torch.cuda.synchronize()
            err = ((c[rows, cols].double() - exact).abs().max() / exact.abs().max()).item()
            print(f"{m},{n},{k},{who},{warm:.4f},{f / warm / 1e6:.0f},{fresh:.4f},"
                  f"{f / fresh / 1e6:.0f},{err:.3g}", flush=True)

        set_tf32(False)
        report("cublas-fp32", lambda i: torch.matmul(As[i], Bs[i], out=c))
        set_tf32(True)
        report("cublas-tf32", lambda i: torch.matmul(As[i], Bs[i], out=c))
        set_tf32(False)
        for name, lib, row_b in libs:
            # A column-major build reads B transposed: made once here, outside the timing.
            Bt = Bs if row_b else [b.t().contiguous() for b in Bs]
            status = lib.gemm_3xtf32(m, n, k, As[0].data_ptr(), Bt[0].data_ptr(), c.data_ptr())
            if status != 0:
                print(f"{m},{n},{k},{name},,,,,cannot ({'alignment' if status == 1 else 'launch'})",
                      flush=True)
                continue
            report(name, lambda i, lib=lib, Bt=Bt:
                   lib.gemm_3xtf32(m, n, k, As[i].data_ptr(), Bt[i].data_ptr(), c.data_ptr()))
            del Bt
        del As, Bs, c
        torch.cuda.empty_cache()


if __name__ == "__main__":
    main()
