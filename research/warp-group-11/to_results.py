#!/usr/bin/env python3
"""A call's files (its ladder, peers and accuracy CSVs, named CALL-*.csv in the working folder)
as rows of results/shapes/<device>.csv (the book's shape page) on stdout, without the header:

    python3 to_results.py call4 >> ../../results/shapes/nvidia-h200.csv

(research/protocol-11/'s call 2 too, run from that folder with this script.)

Speeds: the lessons and the warp-group variant from `lab-bench ladder` (CALL-ladder.csv, every
call on fresh inputs and checked), the peers from peers_shapes.py (CALL-peers.csv). Errors:
lesson 11, its variant and cuBLAS FP32 over every element of C on the same inputs (the course's
matrices of seed 7, CALL-accuracy.csv); lesson 10 at the ladder's checked elements of its own
inputs; cuBLAS TF32 and CUTLASS at 4 096 sampled elements of theirs.
"""
import csv
import sys

call = sys.argv[1]
out = csv.writer(sys.stdout, lineterminator="\n")


def size_key(m, n, k):
    return str(m) if m == n == k else f"{m}x{n}x{k}"


errors = {}
for r in csv.DictReader(open(f"{call}-accuracy.csv")):
    errors[(r["size"], r["who"])] = r["max_rel_err"]
ladder = list(csv.DictReader(open(f"{call}-ladder.csv")))
run = ladder[0]["run"]
for r in ladder:
    if r["lesson"] not in ("11_matrix_units", "10_tuned"):
        continue
    if r["variant"] == "reference":
        who, variant = r["lesson"], r["defines"]
    elif r["variant"] == "warp-group":
        who, variant = f'{r["lesson"]}-warp-group', ""
    else:
        continue  # lesson 10's defaults: not a shape's subject
    key = size_key(r["m"], r["n"], r["k"])
    err = errors.get((key, who), r["max_rel_err"])
    out.writerow([r["date"], run, r["device"], r["driver"], r["m"], r["n"], r["k"], who, variant,
                  round(float(r["gflops"]), 1), "", err])
first = ladder[0]
for r in csv.DictReader(open(f"{call}-peers.csv")):
    if not r["fresh_gflops"]:
        continue  # a CUTLASS build whose alignment the shape does not meet
    who, variant = r["who"], ""
    if who.startswith("cutlass-3xtf32-"):
        who, variant = "cutlass-3xtf32", r["who"][len("cutlass-3xtf32-"):]
    err = r["max_rel_err"]
    if who == "cublas-fp32":
        err = errors[(size_key(r["m"], r["n"], r["k"]), "cublas-fp32")]
    out.writerow([first["date"], run, first["device"], first["driver"], r["m"], r["n"], r["k"],
                  who, variant, r["fresh_gflops"], r["warm_gflops"], err])
