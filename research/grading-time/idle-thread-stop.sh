#!/bin/bash
# How long a thread at the idle policy takes to stop once sent SIGSTOP, when it shares its core
# with N busy programs at the normal policy: the situation of the spin check's lowered threads
# on a busy machine (src/harness/cpu_freeze.rs). A pending stop takes effect only once the
# thread gets the core, and it runs none of its own instructions before that.
# Usage: idle-thread-stop.sh N...   (needs taskset, chrt and bc; pins everything to CPU 1)
for n in "$@"; do
  busy=()
  for _ in $(seq "$n"); do taskset -c 1 sh -c 'while :; do :; done' & busy+=($!); done
  chrt -i 0 taskset -c 1 sh -c 'while :; do :; done' & p=$!
  sleep 2
  for trial in 1 2 3; do
    t0=$(date +%s.%N); kill -STOP $p
    while [ "$(awk '{print $3}' /proc/$p/stat)" != T ]; do sleep 0.001; done
    t1=$(date +%s.%N)
    echo "$n,$trial,$(echo "$t1 - $t0" | bc)"
    kill -CONT $p; sleep 1
  done
  kill $p "${busy[@]}"; wait 2>/dev/null
done
