#!/bin/bash
# The recorded command on an H100: research/protocol-11/call2.sh (issue 32's shapes, every
# lesson launch behind its lead-in, the peers, the errors on the same inputs) with the
# binaries carried in device-bin/h100p/.
LAB_BIN=$PWD/device-bin/h100p exec bash "$PWD/research/protocol-11/call2.sh"
