#!/usr/bin/env python3
"""Opcode histogram of the largest loop in a cuobjdump -sass listing (the k-step loop of
lesson 10's kernel): which instructions the multiply-adds share the issue slots with.

    cuobjdump -sass x.cubin | python3 sass_loop.py NAME
"""
import collections
import re
import sys

name = sys.argv[1] if len(sys.argv) > 1 else "?"
ins = []  # (address, opcode, text)
for line in sys.stdin:
    m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)(.*);", line)
    if m:
        ins.append((int(m.group(1), 16), m.group(3), line.strip()))
loops = []
for addr, op, text in ins:
    if op.startswith("BRA"):
        t = re.search(r"0x([0-9a-f]+)", text)
        if t and int(t.group(1), 16) < addr:
            loops.append((int(t.group(1), 16), addr))
if not loops:
    print(f"{name}: no backward branch found")
    sys.exit()
lo, hi = max(loops, key=lambda l: l[1] - l[0])
body = [(a, op, t) for a, op, t in ins if lo <= a <= hi]
hist = collections.Counter(op.split(".")[0] + ("." + op.split(".")[1] if op.startswith(("LDS", "LDG", "STS")) and "." in op else "") for _, op, _ in body)
total = len(body)
ffma = sum(c for o, c in hist.items() if o.startswith("FFMA"))
print(f"{name}: loop 0x{lo:x}-0x{hi:x}: {total} instructions, FFMA {ffma} ({100.0 * ffma / total:.1f}%)")
print("  " + ", ".join(f"{o} {c}" for o, c in hist.most_common()))
reuse = sum(1 for _, op, t in body if op.startswith("FFMA") and ".reuse" in t)
print(f"  FFMA with a .reuse operand: {reuse} of {ffma}")
