#!/usr/bin/env python3
"""cuBLAS SGEMM through PyTorch, as a peer for the ladder: plain FP32 (TF32 off), timed with
CUDA events, checked against float64 on a sample of elements, and appended to a CSV file in
the ladder's format (LadderRow in src/harness/record.rs).

    python3 scripts/cublas_sgemm.py 1024 2048 4096 --run RUN

By default the rows go to results/<device>.csv, the file `cargo run --release -p lab-bench -- ladder`
writes for the same GPU (the device name in the ladder's file-name form), so the peer appears
in that device's table. Give it the ladder's `--run` value when both are measured in one
device session: rows with the same run were measured together.

By default every timed call multiplies the same A and B, back to back (variant
`sgemm-fp32`: warm, as a library is usually benchmarked). `--inputs fresh` times cuBLAS the
way the course times its lessons (src/harness/timing.rs): every call, warm-up included, on
a new A and B drawn on the host and copied to the GPU, into a C filled with NaN, its result
checked before the next call, each timed call right behind an untimed one on the call before's
inputs, as the course's lead-in (src/harness/lead.rs) (variant `sgemm-fp32-fresh`).
`--inputs rotating` runs back to back over a pool of A and B larger than four L2 caches, so
that no call finds its inputs in L2 (variant `sgemm-fp32-rotating`).
"""

import argparse
import csv
import datetime
import os
import statistics
import subprocess
import sys

HEADER = [
    "date", "run", "device", "driver", "threads", "lesson", "variant", "defines", "m", "n", "k",
    "device_ms", "best_ms", "worst_ms", "reps", "host_ms", "gflops", "host_gflops", "max_rel_err",
]


def slug(name):
    """The ladder's file-name form of a device name: lower case, runs of other characters as '-'."""
    out = ""
    for ch in name.lower():
        if ch.isascii() and ch.isalnum():
            out += ch
        elif not out.endswith("-"):
            out += "-"
    return out.strip("-")


def driver_version(torch):
    """The NVIDIA driver's version from nvidia-smi, else the CUDA runtime torch was built with."""
    try:
        out = subprocess.run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True, text=True, check=True, timeout=30,
        ).stdout.strip().splitlines()
        if out and out[0].strip():
            return out[0].strip()
    except (OSError, subprocess.SubprocessError):
        pass
    return f"CUDA {torch.version.cuda}"


def max_rel_err(torch, a, b, c, samples, seed):
    """max |c - exact| / max |exact| over sampled elements, exact in float64."""
    m, n = c.shape
    g = torch.Generator(device="cpu").manual_seed(seed)
    rows = torch.randint(0, m, (samples,), generator=g)
    cols = torch.randint(0, n, (samples,), generator=g)
    a64 = a[rows.to(a.device)].double()            # samples × K
    b64 = b[:, cols.to(b.device)].double()         # K × samples
    exact = (a64 * b64.t()).sum(dim=1)
    got = c[rows.to(c.device), cols.to(c.device)].double()
    err = (got - exact).abs().max().item()
    scale = exact.abs().max().item()
    return err / scale if scale > 0 else err


GOLDEN = 0x9E3779B97F4A7C15


def splitmix(seed, count):
    """The course's generator (Rng in src/harness/matrix.rs): its first `count` outputs."""
    import numpy as np
    with np.errstate(over="ignore"):
        z = np.uint64(seed) + np.arange(1, count + 1, dtype=np.uint64) * np.uint64(GOLDEN)
        z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
        z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


def lab_matrix(seed, rows, cols):
    """`random(rows * cols, seed)` of src/harness/matrix.rs: uniform in [-1, 1), bit for bit."""
    import numpy as np
    unit = (splitmix(seed, rows * cols) >> np.uint64(40)).astype(np.float32) / np.float32(1 << 24)
    return (np.float32(2.0) * unit - np.float32(1.0)).reshape(rows, cols)


def lab_points(m, n, random=4096, seed=11):
    """`sample_points(shape, 4096, 11)` of src/harness/matrix.rs: where the ladder checks C."""
    pts = [(0, 0), (0, n - 1), (m - 1, 0), (m - 1, n - 1)]
    for j in range(0, n, max(n // 64, 1)):
        pts += [(0, j), (m - 1, j)]
    for i in range(0, m, max(m // 64, 1)):
        pts += [(i, 0), (i, n - 1)]
    z = [int(v) for v in splitmix(seed ^ 0x5EED, 2 * random)]
    pts += [(z[2 * t] % m, z[2 * t + 1] % n) for t in range(random)]
    return pts


def lab_rel_err(torch, a, b, c, pts):
    """max |c - exact| / max |exact| at the points, exact in float64 (as the ladder's check)."""
    rows = torch.tensor([p[0] for p in pts], device=a.device)
    cols = torch.tensor([p[1] for p in pts], device=a.device)
    exact = (a[rows].double() * b[:, cols].double().t()).sum(dim=1)
    got = c[rows, cols].double()
    err = (got - exact).abs().max().item()
    scale = exact.abs().max().item()
    return err / scale if scale > 0 else err


ACCURACY_HEADER = [
    "date", "run", "device", "driver", "seed", "size", "who", "max_rel_err", "rel_frobenius",
]


def full_errors(torch, a, b, products):
    """Every element of each C against the exact product (float64, on the GPU): max |c - exact|
    / max |exact| and ||c - exact|| / ||exact||. A C with a non-finite value has error inf."""
    exact = a.double() @ b.double()
    scale = exact.abs().max().item()
    norm = torch.linalg.norm(exact).item()
    out = {}
    for who, c in products.items():
        diff = c.double() - exact
        if not bool(torch.isfinite(diff).all()):
            out[who] = (float("inf"), float("inf"))
            continue
        out[who] = (diff.abs().max().item() / scale, torch.linalg.norm(diff).item() / norm)
    return out


def lab_products(torch, folder, shape, dev):
    """The C files `lab-bench accuracy --c-out` wrote for this shape: {lesson: C}."""
    import numpy as np
    m, n, _ = shape
    found = {}
    for name in sorted(os.listdir(folder)):
        suffix = f"-{tag(shape)}.f32"
        if not name.endswith(suffix):
            continue
        c = np.fromfile(os.path.join(folder, name), dtype="<f4")
        if c.size != m * n:
            sys.exit(f"error: {name} holds {c.size} values, not {m}x{n}")
        found[name[: -len(suffix)]] = torch.from_numpy(c.reshape(m, n)).to(dev)
    return found


def parse_shape(word):
    """A size N (the cube N x N x N) or a shape MxNxK, as (M, N, K)."""
    try:
        sides = [int(v) for v in word.lower().split("x")]
    except ValueError:
        sides = []
    if len(sides) == 1:
        sides *= 3
    if len(sides) != 3 or min(sides) <= 0:
        raise argparse.ArgumentTypeError(f"{word!r} is not a size N or a shape MxNxK")
    return tuple(sides)


def tag(shape):
    """The name a shape's C file carries (`lab-bench accuracy`): N for a cube, MxNxK otherwise."""
    m, n, k = shape
    return str(m) if m == n == k else f"{m}x{n}x{k}"


def lab_widened(a, b, seed):
    """`Problem::widened(seed)` of src/harness/matrix.rs on A (M x K) and B (K x N): each row of
    A and column of B times 2^u, u = round(x * 20.5) for the generator's next values x, rows
    first (Rust's round: halves away from zero, taken in float64 where +0.5 is exact)."""
    import numpy as np
    m, n = a.shape[0], b.shape[1]
    x = lab_matrix(seed, 1, m + n).reshape(-1) * np.float32(20.5)
    v = x.astype(np.float64)
    u = (np.sign(v) * np.floor(np.abs(v) + 0.5)).astype(np.int32)
    scale = np.ldexp(np.float32(1.0), u).astype(np.float32)
    return a * scale[:m, None], b * scale[None, m:]


def rotl64(x, r):
    return ((x << r) | (x >> (64 - r))) & 0xFFFFFFFFFFFFFFFF


VARIANT = {"same": "sgemm-fp32", "fresh": "sgemm-fp32-fresh", "rotating": "sgemm-fp32-rotating"}


def timed_call(torch, a, b, c):
    """One cuBLAS call between two CUDA events: its time in ms."""
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    start.record()
    torch.matmul(a, b, out=c)
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


def measure_fresh(torch, shape, reps, warmup):
    """Every call on a new A and B drawn on the host (uniform in [-1, 1)) and copied to the
    GPU, C filled with NaN first, the result checked at 4096 sampled elements before the next
    call: the course's protocol. As there, each call after the first is enqueued right behind
    an untimed call on the inputs of the call before (the lead-in), so that the GPU is busy when
    the timed call starts. Returns the median, best and worst ms and the worst error."""
    dev = torch.device("cuda")
    m, n, k = shape
    g = torch.Generator(device="cpu").manual_seed(m)
    times, worst_err, before = [], 0.0, None
    for call in range(warmup + reps):
        a = (torch.rand((m, k), generator=g, dtype=torch.float32) * 2 - 1).to(dev)
        b = (torch.rand((k, n), generator=g, dtype=torch.float32) * 2 - 1).to(dev)
        c = torch.full((m, n), float("nan"), device=dev, dtype=torch.float32)
        torch.cuda.synchronize()
        if before is not None:
            torch.matmul(before[0], before[1], out=before[2])
        ms = timed_call(torch, a, b, c)
        err = max_rel_err(torch, a, b, c, samples=4096, seed=m + call)
        if not err <= 1e-4:
            sys.exit(f"error: cuBLAS call {call} at {tag(shape)} is wrong: max rel err {err}")
        worst_err = max(worst_err, err)
        if call >= warmup:
            times.append(ms)
        before = (a, b, c)
    return statistics.median(times), min(times), max(times), worst_err


def measure_rotating(torch, shape, reps, warmup):
    """Back to back over a pool of inputs larger than four L2 caches: call i multiplies pair
    i mod the pool's size. Returns the median, best and worst ms and the worst error."""
    dev = torch.device("cuda")
    l2 = getattr(torch.cuda.get_device_properties(0), "L2_cache_size", 50 << 20) or (50 << 20)
    m, n, k = shape
    pair = (m * k + k * n) * 4
    count = max(2, -(-4 * l2 // pair))
    g = torch.Generator(device=dev).manual_seed(m)
    pool = [(torch.rand((m, k), device=dev, generator=g) * 2 - 1,
             torch.rand((k, n), device=dev, generator=g) * 2 - 1) for _ in range(count)]
    c = torch.empty((m, n), device=dev, dtype=torch.float32)
    for i in range(warmup):
        torch.matmul(*pool[i % count], out=c)
    torch.cuda.synchronize()
    times = [timed_call(torch, *pool[(warmup + i) % count], c) for i in range(reps)]
    a, b = pool[(warmup + reps - 1) % count]
    err = max_rel_err(torch, a, b, c, samples=4096, seed=m)
    print(f"          rotating over {count} pairs of A and B ({count * pair >> 20} MiB, "
          f"L2 {l2 >> 20} MiB)")
    return statistics.median(times), min(times), max(times), err


def measure(torch, shape, reps, warmup, lab_seed=None, lab_c=None, lab_wide=False):
    dev = torch.device("cuda")
    m, n, k = shape
    if lab_seed is None:
        g = torch.Generator(device=dev).manual_seed(m)
        # Uniform in [-1, 1), as the course's own matrices.
        a = torch.rand((m, k), device=dev, generator=g, dtype=torch.float32) * 2 - 1
        b = torch.rand((k, n), device=dev, generator=g, dtype=torch.float32) * 2 - 1
    else:
        # The very matrices the ladder gives the lessons (Problem::random(shape, seed)), and
        # with --lab-wide `lab-bench accuracy --wide`'s (widened(seed.rotate_left(29))).
        a = lab_matrix(2 * lab_seed + 1, m, k)
        b = lab_matrix(2 * lab_seed + 2, k, n)
        if lab_wide:
            a, b = lab_widened(a, b, rotl64(lab_seed, 29))
        a = torch.from_numpy(a).to(dev)
        b = torch.from_numpy(b).to(dev)
    c = torch.empty((m, n), device=dev, dtype=torch.float32)
    for _ in range(warmup):
        torch.matmul(a, b, out=c)
    torch.cuda.synchronize()
    times = [timed_call(torch, a, b, c) for _ in range(reps)]
    ms = statistics.median(times)
    if lab_seed is None:
        err = max_rel_err(torch, a, b, c, samples=4096, seed=m)
    else:
        err = lab_rel_err(torch, a, b, c, lab_points(m, n))
    full = None
    if lab_c is not None:
        products = {"cublas-fp32": c}
        products.update(lab_products(torch, lab_c, shape, dev))
        full = full_errors(torch, a, b, products)
    return ms, min(times), max(times), err, full


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("sizes", nargs="*", type=parse_shape,
                   default=[(1024,) * 3, (2048,) * 3, (4096,) * 3],
                   help="square sizes M = N = K, or shapes MxNxK (e.g. 8192x8192x1024)")
    p.add_argument("--csv", default=None,
                   help="CSV file to append to, created with the ladder header "
                        "(default: results/<device>.csv)")
    p.add_argument("--reps", type=int, default=50, help="timed repetitions per size")
    p.add_argument("--warmup", type=int, default=10, help="untimed runs per size")
    p.add_argument("--run", default=None,
                   help="the run these rows belong to (the ladder's --run), default: now")
    p.add_argument("--inputs", choices=sorted(VARIANT), default="same",
                   help="same: one A and B for every call, back to back (default); fresh: a new A "
                        "and B from the host for every call, C filled with NaN, each result "
                        "checked, as the course times its lessons; rotating: back to back over a "
                        "pool of inputs larger than four L2 caches")
    p.add_argument("--lab-inputs", type=int, default=None, metavar="SEED",
                   help="use the course's own matrices of this seed (the ladder's lessons use 7) "
                        "and check C where the ladder checks it, so that errors compare on the "
                        "same inputs")
    p.add_argument("--lab-c", default=None, metavar="DIR",
                   help="with --lab-inputs: the folder of C files `lab-bench accuracy --c-out` wrote "
                        "for the same seed; every element of each, and of cuBLAS's C, is compared "
                        "with the float64 product, into --accuracy-csv")
    p.add_argument("--lab-wide", action="store_true",
                   help="with --lab-inputs: the course's inputs widened as `lab-bench accuracy "
                        "--wide` makes them (rows of A and columns of B scaled by 2^-20..2^20)")
    p.add_argument("--accuracy-csv", default=None,
                   help="where --lab-c's errors go (default: results/accuracy/<device>.csv)")
    args = p.parse_args()
    if args.lab_wide and args.lab_inputs is None:
        sys.exit("error: --lab-wide widens the course's inputs: give --lab-inputs SEED too")
    if args.lab_c is not None and args.lab_inputs is None:
        sys.exit("error: --lab-c compares on the course's inputs: give --lab-inputs SEED too")
    if args.inputs != "same" and (args.lab_inputs is not None or args.lab_c is not None):
        sys.exit("error: --lab-inputs and --lab-c use one A and B: leave --inputs at same")
    if args.lab_c is not None and not os.path.isdir(args.lab_c):
        sys.exit(f"error: --lab-c {args.lab_c} is not a folder")

    try:
        import torch
    except ImportError:
        sys.exit("error: PyTorch is not installed (pip install torch)")
    if not torch.cuda.is_available():
        sys.exit("error: PyTorch sees no CUDA device")

    # Plain FP32: no TF32 tensor-core shortcut, which would round the inputs to 10 bits.
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    torch.set_float32_matmul_precision("highest")

    device = torch.cuda.get_device_name(0)
    driver = driver_version(torch)
    now = datetime.datetime.now(datetime.timezone.utc)
    today = now.strftime("%Y-%m-%d")
    run = args.run or now.strftime("%Y-%m-%dT%H:%M:%SZ")
    rows = []
    accuracy = []
    print(f"cuBLAS SGEMM (TF32 off) on {device}, driver {driver}, torch {torch.__version__}, "
          f"inputs: {args.inputs}")
    for shape in args.sizes:
        m, n, k = shape
        size = tag(shape)
        full = None
        if args.inputs == "fresh":
            ms, best, worst, err = measure_fresh(torch, shape, args.reps, args.warmup)
        elif args.inputs == "rotating":
            ms, best, worst, err = measure_rotating(torch, shape, args.reps, args.warmup)
        else:
            ms, best, worst, err, full = measure(torch, shape, args.reps, args.warmup,
                                                 args.lab_inputs, args.lab_c, args.lab_wide)
        gflops = 2.0 * m * n * k / (ms * 1e-3) / 1e9
        print(f"  {size:>6}  {ms:9.4f} ms (best {best:.4f}, worst {worst:.4f})  "
              f"{gflops:10.1f} GFLOP/s  max rel err {err:.2e}")
        # Device and host time are the same here: the matrices never leave the GPU.
        rows.append(dict(zip(HEADER, [
            today, run, device, driver, 0, "cublas", VARIANT[args.inputs], "", m, n, k,
            f"{ms:.4f}", f"{best:.4f}", f"{worst:.4f}", args.reps, f"{ms:.4f}",
            f"{gflops:.1f}", f"{gflops:.1f}", f"{err:.2e}",
        ])))
        for who, (mx, fro) in (full or {}).items():
            print(f"          {who:<20} every element: max rel err {mx:.2e}, "
                  f"relative Frobenius {fro:.2e}")
            accuracy.append(dict(zip(ACCURACY_HEADER, [
                today, run, device, driver,
                f"{args.lab_inputs}{' wide' if args.lab_wide else ''}", size, who,
                f"{mx:.2e}", f"{fro:.2e}",
            ])))

    if args.csv is None:
        root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        args.csv = os.path.join(root, "results", slug(device) + ".csv")
    os.makedirs(os.path.dirname(args.csv) or ".", exist_ok=True)
    old = []
    if os.path.exists(args.csv) and os.path.getsize(args.csv) > 0:
        with open(args.csv, newline="") as f:
            reader = csv.DictReader(f)
            if reader.fieldnames != HEADER:
                # A file with older columns is rewritten with these, as the ladder does.
                old = [{k: r.get(k, "") or "" for k in HEADER} for r in reader]
    if old or not os.path.exists(args.csv) or os.path.getsize(args.csv) == 0:
        with open(args.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=HEADER, lineterminator="\n")
            w.writeheader()
            w.writerows(old)
    with open(args.csv, "a", newline="") as f:
        csv.DictWriter(f, fieldnames=HEADER, lineterminator="\n").writerows(rows)
    print(f"appended {len(rows)} row(s) to {args.csv}")
    if accuracy:
        path = args.accuracy_csv or os.path.join(
            os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "results", "accuracy",
            slug(device) + ".csv")
        os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
        new = not os.path.exists(path) or os.path.getsize(path) == 0
        with open(path, "a", newline="") as f:
            w = csv.DictWriter(f, fieldnames=ACCURACY_HEADER, lineterminator="\n")
            if new:
                w.writeheader()
            w.writerows(accuracy)
        print(f"appended {len(accuracy)} accuracy row(s) to {path}")


if __name__ == "__main__":
    main()
