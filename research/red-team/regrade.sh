#!/bin/bash
# Grades every OpenCL red-team attempt (ocl/, ocl3/) and every correct kernel of right3/ again
# with `lab grade NN` (which times nothing) and prints "folder | first verdict line". A folder
# holds the graded .cl file, or a .diff against the course's solution, applied here.
# Usage: research/red-team/regrade.sh [LAB] > FILE   (LAB: target/release/lab by default)
set -u
cd "$(dirname "$0")/../.."
LAB=${1:-target/release/lab}
for dir in research/red-team/ocl/*/ research/red-team/ocl3/*/ research/red-team/right3/*/; do
  name=$(basename "$(dirname "$dir")")-$(basename "$dir")
  # Hosts and demonstrations of an attempt, not attempts.
  case $(basename "$dir") in host|demo) continue ;; esac
  k=$(mktemp -d)
  for f in "$dir"*.cl; do [ -e "$f" ] && cp "$f" "$k/"; done
  for d in "$dir"*.diff; do
    [ -e "$d" ] || continue
    base=$(basename "$d" .diff)
    patch -s -o "$k/$base.cl" "solutions/$base.cl" "$d" || echo "$name: the diff did not apply"
  done
  cl=$(ls "$k"/*.cl 2>/dev/null | head -1)
  if [ -z "$cl" ]; then rm -rf "$k"; continue; fi
  les=$(basename "$cl" | cut -c1-2)
  line=$(LAB_PROGRESS="$k/progress.json" timeout 900 "$LAB" grade "$les" --kernels "$k" 2>&1 \
    | grep -E '^  (PASSED|[A-Z][A-Z -]{3,}:|FAILED)' | head -1 | cut -c1-140)
  echo "$name | $line"
  rm -rf "$k"
done
