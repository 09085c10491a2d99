#!/bin/bash
# Matrices written to the device by write and fill commands (e1852d8): the references of the
# OpenCL lessons graded by `lab grade` on NVIDIA's OpenCL, then lesson 04's kernels that write
# past C (tests/wrong/04_naive_kernel/out_of_bounds.cl), into B (writes_into_b.cl), nothing
# (never_writes.cl), and read past B (the reference with `k <= K`): each found by the zones
# the fill commands set. (It ran as a copy of call30.sh with these three lines changed; it now
# runs that script with them.)
D=device-bin/buf KERNELS="kob:04 kwb:04 knw:04 kkk:04" OUTDIR=buf \
    exec bash "$(dirname "$0")/call30.sh"
