#!/usr/bin/env python3
"""Call 6's files -> call6-results.csv (one line per shape and implementation) and the README's
table (markdown, stdout). Run in this folder: python3 to_csv.py"""
import csv
import re

SHAPES = ["1024x1024x1024", "2048x2048x2048", "4096x4096x4096", "8192x8192x8192", "2047x2047x2047",
          "4095x4095x4095", "8191x8191x8191", "8192x8192x1024", "1024x8192x8192", "12288x4096x3072"]
rows = []  # (shape, impl, config, fresh, warm, err)
section = ""
for line in open("call6-log.txt"):
    if line.startswith("####"):
        section = line
    m = re.match(r"RESULT (\d+x\d+x\d+) \| (\w+) \| (.*?) \| fresh [0-9.]+ ms \(min [0-9.]+\) ([0-9.]+) TFLOP/s "
                 r"\| warm [0-9.]+ ms ([0-9.]+) TFLOP/s \| err ([0-9.e+-]+) \((\d+) pts(, all)?\) \| (\w+)", line)
    if not m or m.group(1) not in SHAPES:
        continue
    shape, who, opts, fresh, warm, err = m.group(1, 2, 3, 4, 5, 6)
    opts = re.sub(r"\s+", " ", opts).strip()
    if "without padding" in section:
        impl = "wgmma-unpadded"
    elif who == "wgs":
        impl = "wgmma"
    else:
        impl = "solution-kernel-research-host"
    rows.append((shape, impl, opts, float(fresh), float(warm), float(err)))
for r in csv.DictReader(open("call6-peers.csv")):
    if not r["fresh_gflops"]:
        continue
    shape = f"{r['m']}x{r['n']}x{r['k']}"
    who = r["who"]
    impl = {"cublas-fp32": "cublas-fp32", "cublas-tf32": "cublas-tf32"}.get(who, who)
    rows.append((shape, impl, "", float(r["fresh_gflops"]) / 1e3, float(r["warm_gflops"]) / 1e3,
                 float(r["max_rel_err"])))
for r in csv.DictReader(open("call6-11_matrix_units.csv")):
    shape = f"{r['m']}x{r['n']}x{r['k']}"
    rows.append((shape, "lesson11-binary", r["defines"], float(r["gflops"]) / 1e3, float("nan"),
                 float(r["max_rel_err"])))
order = {s: i for i, s in enumerate(SHAPES)}
rows.sort(key=lambda r: (order[r[0]], r[1]))
with open("call6-results.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["shape", "impl", "config", "tflops_fresh", "tflops_warm", "max_rel_err"])
    for s, impl, cfg, fr, wa, e in rows:
        w.writerow([s, impl, cfg, f"{fr:.2f}", "" if wa != wa else f"{wa:.2f}", f"{e:.3g}"])


def get(shape, impl):
    for r in rows:
        if r[0] == shape and r[1] == impl:
            return r
    return None


print("| M × N × K | wgmma (block) | solution kernel | lesson 11 | cuBLAS FP32 | cuBLAS TF32 | CUTLASS 3xTF32 "
      "| wgmma / cuBLAS | wgmma / CUTLASS | error wgmma / cuBLAS / CUTLASS / solution |")
print("|---|--:|--:|--:|--:|--:|--:|--:|--:|---|")
for s in SHAPES:
    wg, so, le = get(s, "wgmma"), get(s, "solution-kernel-research-host"), get(s, "lesson11-binary")
    cb, tf = get(s, "cublas-fp32"), get(s, "cublas-tf32")
    ct = get(s, "cutlass-3xtf32-c128x64s3") or get(s, "cutlass-3xtf32-c128x128s3a1")
    any_al = ct[1].endswith("a1")
    bm = re.search(r"BM=(\d+)", wg[2]).group(1)
    blk = f"{bm}×128{' padded' if 'PAD=1' in wg[2] else ''}"
    label = s.replace("x", " × ") if len(set(s.split("x"))) > 1 else s.split("x")[0] + "³"
    print(f"| {label} | **{wg[3]:.1f}** ({wg[4]:.1f}; {blk}) | {so[3]:.1f} | {le[3]:.1f} | {cb[3]:.1f} ({cb[4]:.1f}) "
          f"| {tf[3]:.0f} | {ct[3]:.1f} ({ct[4]:.1f}){' a1' if any_al else ''} | **{wg[3] / cb[3]:.2f}** "
          f"| **{wg[3] / ct[3]:.2f}** | {wg[5]:.2g} / {cb[5]:.2g} / {ct[5]:.2g} / {so[5]:.2g} |")
