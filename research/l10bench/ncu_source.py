#!/usr/bin/env python3
"""Reads Nsight Compute's source page (`ncu -i R --page source --print-source sass --csv`) and
summarises the hottest loop: its instruction mix, where the warp-state samples fall, and the
stall reasons per kind of instruction. `python3 ncu_source.py src.csv [--list]`.
"""
import collections
import csv
import sys

rows = list(csv.reader(open(sys.argv[1])))
hdr = rows[1]
col = {h: i for i, h in enumerate(hdr)}
reasons = [h for h in hdr if h.startswith("stall_") and "Not Issued" not in h]
ins = []
for r in rows[2:]:
    if len(r) < len(hdr) or not r[0].startswith("0x"):
        continue
    src = r[col["Source"]].strip()
    ex = int(r[col["Instructions Executed"]] or 0)
    smp = int(r[col["Warp Stall Sampling (All Samples)"]] or 0)
    st = {h: int(r[col[h]] or 0) for h in reasons}
    ins.append((int(r[0], 16), src, ex, smp, st))
top = max(e for _, _, e, _, _ in ins)
loop = [x for x in ins if x[2] >= top * 0.9]
lo, hi = loop[0][0], loop[-1][0]
body = [x for x in ins if lo <= x[0] <= hi]
tot = sum(x[3] for x in ins)
ls = sum(x[3] for x in body)
print(f"{len(body)} instructions in the loop {lo:#x}-{hi:#x}, executed {top} times per warp...; "
      f"{ls} of {tot} samples ({100*ls/tot:.1f} %)")
ops = collections.Counter()
by_op = collections.defaultdict(collections.Counter)
for _, s, _, smp, st in body:
    op = s.split()[0] if not s.startswith("@") else s.split()[1]
    op = op.split(".")[0] + (".128" if ".128" in s.split()[0 if not s.startswith("@") else 1] else "")
    ops[op] += 1
    for h, v in st.items():
        by_op[op][h] += v
print("mix:", ", ".join(f"{o} {n}" for o, n in ops.most_common()))
print("samples per stall reason, by the instruction that was waiting:")
for o, _ in ops.most_common():
    c = by_op[o]
    s = sum(c.values())
    print(f"  {o:10s} {s:7d}  " + ", ".join(f"{h[6:]} {v}" for h, v in c.most_common(5) if v))
tr = collections.Counter()
for _, _, _, _, st in body:
    tr.update(st)
print("loop total:", ", ".join(f"{h[6:]} {v} ({100*v/ls:.1f}%)" for h, v in tr.most_common(9)))
if "--list" in sys.argv:
    for a, s, e, smp, st in body:
        top3 = ", ".join(f"{h[6:]} {v}" for h, v in sorted(st.items(), key=lambda x: -x[1])[:3] if v)
        print(f"{a - lo:6x} {smp:6d}  {s:60s} {top3}")
