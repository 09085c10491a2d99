#!/bin/bash
# Session 6, call 34: call 33 on an H200, if one comes (its runs named -h200-l11 and -h200-acc)
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv
nvidia-smi --query-gpu=name --format=csv,noheader | grep -q H200 || { echo "not an H200: stopping"; exit 0; }
sed 's/-h100-l11/-h200-l11/; s/-h100-acc/-h200-acc/' "$(dirname "$0")/call33.sh" | bash
