#!/usr/bin/env python3
"""Sums the scheduler's stall counts over the largest loop of a cuobjdump -sass listing
(Volta and later: the control bits in the high word of each 128-bit instruction): the
fewest cycles one warp needs per iteration if it never waits on a scoreboard.

    cuobjdump -sass x.cubin | python3 sass_ctrl.py NAME
"""
import collections
import re
import sys

name = sys.argv[1] if len(sys.argv) > 1 else "?"
lines = sys.stdin.read().splitlines()
ins = []
i = 0
while i < len(lines):
    m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)(.*?);\s*/\* (0x[0-9a-f]+) \*/", lines[i])
    if m and i + 1 < len(lines):
        hi = re.search(r"/\* (0x[0-9a-f]+) \*/", lines[i + 1])
        if hi:
            ctrl = int(hi.group(1), 16) >> 41
            ins.append((int(m.group(1), 16), m.group(3), ctrl & 0xF, (ctrl >> 4) & 1, (ctrl >> 11) & 0x3F))
            i += 2
            continue
    i += 1
loops = []
for k, (a, op, *_rest) in enumerate(ins):
    pass
for a, op, *_ in ins:
    pass
txt = "\n".join(lines)
for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?BRA\s+(0x[0-9a-f]+)", txt):
    src, dst = int(m.group(1), 16), int(m.group(3), 16)
    if dst < src:
        loops.append((dst, src))
lo, hi_ = max(loops, key=lambda l: l[1] - l[0])
body = [x for x in ins if lo <= x[0] <= hi_]
stalls = collections.Counter()
cyc = collections.Counter()
for a, op, st, y, w in body:
    key = op.split(".")[0]
    stalls[(key, st)] += 1
    cyc[key] += st
ffma = [st for a, op, st, y, w in body if op.startswith("FFMA")]
print(f"{name}: loop 0x{lo:x}-0x{hi_:x}, {len(body)} instructions, stall-count sum {sum(x[2] for x in body)} cycles; FFMA stall counts: " +
      ", ".join(f"{s}:{c}" for s, c in sorted(collections.Counter(ffma).items())))
print("  cycles by opcode: " + ", ".join(f"{k} {v}" for k, v in cyc.most_common(8)))
waits = sum(1 for a, op, st, y, w in body if op.startswith("FFMA") and w)
print(f"  FFMA that wait on a scoreboard (an LDS result): {waits}")
