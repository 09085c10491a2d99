"""Medians of each step's device time per shape from a `steps-*.txt` (the research build's
LAB_STEP_MS lines): python3 steps.py call2/steps-il-big.txt"""
import collections
import re
import statistics
import sys

for path in sys.argv[1:]:
    runs = collections.defaultdict(list)
    for line in open(path):
        m = re.match(r"STEPS (M=\d+ N=\d+ K=\d+) g(\[[^\]]*\]) \[(.*?)\]", line)
        if m:
            times = [float(x) for x in re.findall(r"([\d.]+)us", m.group(3))]
            runs[(m.group(1), m.group(2), len(times))].append(times)
    print(f"== {path}")
    for (shape, grid, n), calls in runs.items():
        med = [statistics.median(c[i] for c in calls) for i in range(n)]
        print(shape, grid, len(calls), " ".join(f"{t:.1f}" for t in med), f"sum {sum(med):.1f}")
