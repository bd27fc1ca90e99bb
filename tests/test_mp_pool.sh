#!/bin/sh
# test_mp_pool.sh LIB BLOCKS - run mp_pool.py with libhugepolicy.so preloaded
# (the environment picks backend and mode), through the real interpreter
# (python3 may be a pyenv shim script, which would be preloaded too).
set -eu
lib=$1
blocks=$2
py=$(python3 -c 'import sys; print(sys.executable)')
exec env LD_PRELOAD="$lib" timeout -s KILL 120 "$py" "$(dirname "$0")/mp_pool.py" "$blocks"
