#!/usr/bin/env python3
"""Medians of a rounds file (before against now): wall and CPU seconds per lesson."""
import csv, statistics as st, sys
rows = list(csv.DictReader(open(sys.argv[1])))
print("| lesson | rounds | before (s) | now (s) | wall | CPU before | CPU now | CPU |")
print("|---|--:|--:|--:|--:|--:|--:|--:|")
for l in sorted({r["lesson"] for r in rows}):
    get = lambda b, c: [float(r[c]) for r in rows if r["lesson"] == l and r["build"] == b]
    b, n, bc, nc = get("before", "seconds"), get("now", "seconds"), get("before", "cpu_seconds"), get("now", "cpu_seconds")
    bad = sum(1 for r in rows if r["lesson"] == l and r["verdict"] != "1")
    print(f"| {l} | {len(b)} | {st.median(b):.2f} | {st.median(n):.2f} | {st.median(n)/st.median(b)-1:+.0%} | "
          f"{st.median(bc):.2f} | {st.median(nc):.2f} | {st.median(nc)/st.median(bc)-1:+.0%} |" + (f" {bad} not passing" if bad else ""))
