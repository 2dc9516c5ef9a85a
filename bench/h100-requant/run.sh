#!/bin/bash
# Issue 16, 2026-12-06, call 1 (asked for the H200; an NVIDIA H100 80GB HBM3 came). The script is
# the one that ran on the H200 in call 3, bench/h200-pairs/run.sh, word for word; its outputs are
# the files beside this one.
exec bash bench/h200-pairs/run.sh "$@"
