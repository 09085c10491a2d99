#!/usr/bin/env python3
"""Where the global loads sit in each loop of a cuobjdump -sass listing: for every LDG (and
STS and BAR) of a loop, how many FFMA of the loop come before it. Shows whether the compiler
issued the next k-step's loads early (few FFMA before them) or sank them towards their use.

    cuobjdump -sass x.cubin | python3 sass_ldg.py NAME
"""
import re
import sys

name = sys.argv[1] if len(sys.argv) > 1 else "?"
ins = []
for line in sys.stdin:
    m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)(.*);", line)
    if m:
        ins.append((int(m.group(1), 16), m.group(3), line.split(";")[0].strip()))
loops = []
for addr, op, text in ins:
    if op.startswith("BRA"):
        t = re.search(r"0x([0-9a-f]+)", text.split("BRA", 1)[1])
        if t and int(t.group(1), 16) < addr:
            loops.append((int(t.group(1), 16), addr))
for lo, hi in loops:
    body = [(a, op, t) for a, op, t in ins if lo <= a <= hi]
    ffma = sum(op.startswith("FFMA") for _, op, _ in body)
    if ffma < 256:
        continue
    print(f"{name}: loop {lo:#x}-{hi:#x}: {len(body)} instructions, {ffma} FFMA")
    seen = 0
    where = {"LDG": [], "LDGSTS": [], "STS": [], "BAR": []}
    for a, op, t in body:
        if op.startswith("FFMA"):
            seen += 1
        elif op.split(".")[0] in where:
            where[op.split(".")[0]].append(seen)
    for kind, at in where.items():
        print(f"  {kind} ({len(at)}) after how many FFMA: {' '.join(map(str, at))}")
