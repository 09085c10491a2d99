#!/bin/bash
# usage: demo.sh NAME cmd...   (runs under the grade lock, from /work/main, output to demo-NAME.log)
name=$1; shift
cd /work/main
flock /tmp/grade.lock timeout 600 "$@" > /work/redteam/ocl/demo-$name.log 2>&1
echo "rc=$?" >> /work/redteam/ocl/demo-$name.log
