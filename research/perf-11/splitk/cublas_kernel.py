"""cuBLAS SGEMM's kernel time alone, from the profiler, timed three ways.

  back-to-back : one A and B, calls back to back (how cuBLAS is usually quoted)
  idle-same    : one A and B, the GPU left idle 15 ms before each call
  idle-fresh   : a new A and B copied from host memory before each call, then 15 ms idle
                 (how the course's loop leaves the GPU while it draws and checks)

Kernel time is the sum of the CUDA kernels each call launched, from torch.profiler (CUPTI):
the same span an OpenCL profiling event gives a lesson's kernel, with no host dispatch in it.
TF32 is off (FP32 on the CUDA cores). Arguments: sizes (`1024`) or shapes (`8192x8192x1024`,
M x N x K); `--fresh-only` times only the course's way. Prints one CSV row per shape and way.
"""
import statistics
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile

torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False
dev = torch.device("cuda")
REPS = 50
IDLE_S = 0.015


def kernels_per_call(prof, calls):
    """Per call: the summed duration (us) of the CUDA kernels it launched. The kernels of the
    profile (copies left out), in order of start, split evenly among the calls: every call
    launches the same kernels."""
    ks = [e for e in prof.events()
          if e.device_type == torch.autograd.DeviceType.CUDA
          and "memcpy" not in e.name.lower() and "memset" not in e.name.lower()]
    ks.sort(key=lambda e: e.time_range.start)
    names = sorted({e.name for e in ks})
    if not ks or len(ks) % calls:
        raise SystemExit(f"{len(ks)} kernels for {calls} calls: {names}")
    per = len(ks) // calls
    return [sum(e.time_range.elapsed_us() for e in ks[i * per:(i + 1) * per])
            for i in range(calls)], names


def run(shape, way):
    m, n, k = shape
    host = ([(torch.rand(m, k).pin_memory(), torch.rand(k, n).pin_memory()) for _ in range(4)]
            if way == "idle-fresh" else None)
    a = torch.rand(m, k, device=dev)
    b = torch.rand(k, n, device=dev)
    c = torch.empty(m, n, device=dev)
    for _ in range(5):
        torch.matmul(a, b, out=c)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA], acc_events=True) as prof:
        for i in range(REPS):
            if way == "idle-fresh":
                a.copy_(host[i % 4][0])
                b.copy_(host[(i + 1) % 4][1])
                torch.cuda.synchronize()
            if way != "back-to-back":
                time.sleep(IDLE_S)
            torch.matmul(a, b, out=c)
            if way != "back-to-back":
                torch.cuda.synchronize()
        torch.cuda.synchronize()
    us, names = kernels_per_call(prof, REPS)
    med = statistics.median(us)
    tflops = 2 * m * n * k / (med * 1e-6) / 1e12
    return med, min(us), max(us), tflops, len(us), names


def parse(arg):
    """`1024` (a cube) or `MxNxK`."""
    parts = [int(p) for p in arg.split("x")]
    return tuple(parts * 3) if len(parts) == 1 else tuple(parts)


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    ways = ["back-to-back", "idle-same", "idle-fresh"]
    if "--fresh-only" in sys.argv:
        ways = ["idle-fresh"]
    shapes = [parse(a) for a in args] or [(s, s, s) for s in (1024, 2048, 4096)]
    print(f"# {torch.cuda.get_device_name()} torch {torch.__version__} cuda {torch.version.cuda}")
    print("m,n,k,way,calls,median_us,min_us,max_us,tflops,kernels")
    for shape in shapes:
        for way in ways:
            med, lo, hi, tf, calls, names = run(shape, way)
            m, n, k = shape
            print(f"{m},{n},{k},{way},{calls},{med:.1f},{lo:.1f},{hi:.1f},{tf:.2f},"
                  f"{'|'.join(names)}", flush=True)


if __name__ == "__main__":
    main()
