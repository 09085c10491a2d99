"""cuBLAS FP32 (TF32 off) at the shapes of session 8, three timings and its error.

  events      : median of 50 calls back to back on the same A and B, CUDA events around each
                call (scripts/cublas_sgemm.py's default; includes the host's dispatch of the call)
  b2b-kernel  : the same calls, the kernels' own time from the profiler (CUPTI), as
                research/kernel-time/cublas_kernel.py (imported from beside this file) reads it
  idle-kernel : kernel time of calls each made after 15 ms of idle GPU (same A and B)

Error: max |C - exact| / max |exact| at 4096 sampled elements, exact in float64, inputs uniform
in [-1, 1). Arguments: shapes MxNxK. Prints one CSV row per shape.
"""
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cublas_kernel import run  # noqa: E402  (research/kernel-time/cublas_kernel.py, unchanged)

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")


def events(m, n, k, reps=50):
    g = torch.Generator(device=dev).manual_seed(7)
    a = torch.rand(m, k, device=dev, generator=g) * 2 - 1
    b = torch.rand(k, n, device=dev, generator=g) * 2 - 1
    c = torch.empty(m, n, device=dev)
    for _ in range(10):
        torch.matmul(a, b, out=c)
    torch.cuda.synchronize()
    ts = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record()
        torch.matmul(a, b, out=c)
        e.record()
        e.synchronize()
        ts.append(s.elapsed_time(e))
    gi = torch.Generator().manual_seed(11)
    i = torch.randint(0, m, (4096,), generator=gi).to(dev)
    j = torch.randint(0, n, (4096,), generator=gi).to(dev)
    exact = (a.double()[i, :] * b.double()[:, j].T).sum(1)
    err = ((c[i, j].double() - exact).abs().max() / exact.abs().max()).item()
    return statistics.median(ts), err


def main():
    shapes = [tuple(int(x) for x in s.split("x")) for s in sys.argv[1:]]
    print(f"# {torch.cuda.get_device_name()} torch {torch.__version__} cuda {torch.version.cuda}")
    print("m,n,k,events_ms,events_tflops,b2b_kernel_us,b2b_kernel_tflops,idle_kernel_us,"
          "idle_kernel_tflops,max_rel_err,kernels")
    for m, n, k in shapes:
        ms, err = events(m, n, k)
        f = 2.0 * m * n * k
        b2b = run((m, n, k), "back-to-back")
        idle = run((m, n, k), "idle-same")
        print(f"{m},{n},{k},{ms:.4f},{f / ms * 1e-9:.2f},{b2b[0]:.1f},{b2b[3]:.2f},"
              f"{idle[0]:.1f},{idle[3]:.2f},{err:.2e},{'|'.join(b2b[5])}", flush=True)


if __name__ == "__main__":
    main()
