#!/bin/bash
# On an H100 (asked for nvidia-h100-x1), with main's code of 2026-12-07 at 8f7ce18 (since call
# 27: the simulator's lowering, which a GPU without Oclgrind never runs, and the judge's naming
# of a near miss): call 23 again with that binary (the references of 04, 10 and 11 graded as a
# student on the scoreboard ten times in a row; kernels wrong only at 1024^3 or only at square
# powers of two from 256 on the scoreboard and by `lab grade`; lessons 11 and 12 by `lab
# grade`), then every GPU lesson's reference (04-12) on the scoreboard once. No Oclgrind on the
# device.
set -u
D=$PWD/device-bin/g44 bash "$(dirname "$0")/call27.sh"   # the lab binary, built on a CPU machine
