#!/usr/bin/env python3
"""One device call's files (peers.csv from peers_shapes.py, the lesson programs' --record
files) as rows of results/shapes/<device>.csv, the file the book's shape page is made from.

    python3 to_results.py CALL_DIR DEVICE DRIVER DATE RUN > rows.csv
"""
import csv
import sys

folder, device, driver, date, run = sys.argv[1:6]
out = csv.writer(sys.stdout, lineterminator="\n")
out.writerow(["date", "run", "device", "driver", "m", "n", "k", "who", "variant",
              "fresh_gflops", "warm_gflops", "max_rel_err"])
for lesson in ("11_matrix_units", "10_tuned"):
    for r in csv.DictReader(open(f"{folder}/{lesson}.csv")):
        # The course times every call on fresh inputs; it has no warm figure.
        out.writerow([date, run, device, driver, r["m"], r["n"], r["k"], lesson, r["defines"],
                      round(float(r["gflops"]), 1), "", r["max_rel_err"]])
for r in csv.DictReader(open(f"{folder}/peers.csv")):
    if not r["fresh_gflops"]:
        continue  # a CUTLASS build whose alignment the shape does not meet
    who, variant = r["who"], ""
    if who.startswith("cutlass-3xtf32-"):
        who, variant = "cutlass-3xtf32", r["who"][len("cutlass-3xtf32-"):]
    out.writerow([date, run, device, driver, r["m"], r["n"], r["k"], who, variant,
                  r["fresh_gflops"], r["warm_gflops"], r["max_rel_err"]])
