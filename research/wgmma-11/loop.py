# The main loop of a kernel's SASS (from research/perf-11/scripts/loop.py; HGMMA, wgmma, counts too):
# opcode counts inside it, and in the whole kernel.
import re, sys, collections
ins = []
for line in open(sys.argv[1]):
    m = re.match(r'\s+/\*([0-9a-f]{4,})\*/\s+(@!?U?P\w+\s+)?([A-Z][A-Z0-9._]+)(.*)', line)
    if m:
        ins.append((int(m.group(1), 16), m.group(3), m.group(4)))
best = None
for i, (a, op, rest) in enumerate(ins):
    if op.startswith('BRA'):
        t = re.search(r'0x([0-9a-f]+)', rest)
        if t and int(t.group(1), 16) < a:
            lo = int(t.group(1), 16)
            body = [o for (b, o, _) in ins if lo <= b <= a]
            if any(o.startswith(('HMMA', 'HGMMA')) for o in body) and (best is None or len(body) > len(best[2])):
                best = (lo, a, body)
print("whole kernel: %d instructions" % len(ins))
if best:
    lo, hi, body = best
    print("main loop 0x%x..0x%x: %d instructions" % (lo, hi, len(body)))
    c = collections.Counter(o.split('.')[0] if not o.startswith(('HMMA', 'HGMMA')) else o for o in body)
    print("  " + ", ".join("%s %d" % kv for kv in c.most_common()))
