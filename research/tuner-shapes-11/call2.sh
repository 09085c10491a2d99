#!/bin/bash
# Call 2: call1.sh on an H100, with research/h100-11/'s binaries (see call1.sh for what it does).
LAB_BIN=$PWD/device-bin/h100p exec bash "$PWD/research/tuner-shapes-11/call1.sh"
