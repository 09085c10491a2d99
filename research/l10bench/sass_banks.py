#!/usr/bin/env python3
"""Register-bank check of the FFMAs in the largest loop of a cuobjdump -sass listing.
Counts FFMAs whose source registers that are not served by the operand reuse cache
(a `.reuse` flag on the same operand slot of the previous FFMA, same register) fall in
the same bank (register number mod 2, the two banks of Volta and later).

    cuobjdump -sass x.cubin | python3 sass_banks.py NAME
"""
import collections
import re
import sys

name = sys.argv[1] if len(sys.argv) > 1 else "?"
txt = sys.stdin.read()
loops = [(int(m.group(3), 16), int(m.group(1), 16))
         for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?BRA\s+(0x[0-9a-f]+)", txt)
         if int(m.group(3), 16) < int(m.group(1), 16)]
lo, hi = max(loops, key=lambda l: l[1] - l[0])
prev = None  # previous instruction's (opcode, [(reg, reuse)])
stats = collections.Counter()
for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)\s+([^;]*);", txt):
    a = int(m.group(1), 16)
    if not lo <= a <= hi:
        continue
    op, args = m.group(3), m.group(4)
    if not op.startswith("FFMA"):
        prev = None
        continue
    ops = [o.strip() for o in args.split(",")]
    srcs = []
    for o in ops[1:4]:
        r = re.match(r"-?R(\d+)(\.reuse)?$", o)
        srcs.append((int(r.group(1)), bool(r.group(2))) if r else (None, False))
    fetched = []
    for slot, (reg, _) in enumerate(srcs):
        if reg is None:
            continue
        cached = prev is not None and prev[slot][0] == reg and prev[slot][1]
        if not cached:
            fetched.append(reg)
    banks = collections.Counter(r % 2 for r in fetched)
    worst = max(banks.values()) if banks else 0
    stats[f"reads {len(fetched)}, most in one bank {worst}"] += 1
    prev = srcs
print(f"{name}: FFMA source reads after the reuse cache, loop 0x{lo:x}-0x{hi:x}")
for k, v in sorted(stats.items()):
    print(f"  {k}: {v}")
