#!/bin/bash
# Issue 16, 2026-12-06 (session 33), call 1: 4C1W -> 4C and 4C -> 4C1W requantizing at 128 / 256 MiB,
# the kernels sharing one input (as the whole run) and each with its own (--cold), then the tile
# and quad paths swept with their own inputs; then the whole benchmark with --cold.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt; cat $OUT/gpu.txt
B=./.h/q8ta_bench
L='8,256,256,256;16,256,256,256'
mkdir -p $OUT/r
t() { local name=$1 p=$2; shift 2; local s=$(date +%s); timeout 70 "$B" --cases $L --reps 10 --warmup 2 --pairs $p "$@" --json $OUT/r/$name.json > $OUT/r/$name.txt 2>&1; echo "$name rc=$? $(( $(date +%s) - s ))s"; }
P='4C->4C1W'; Q='4C1W->4C'
t a-shared $Q --quant requant
t b-cold $Q --quant requant --cold
t c-cold-tile $Q --quant requant --cold --sweep-path tile --blocks x --requantization float --sweep '4,8,2;4,16,2;4,8,4;4,4,4'
t d-cold-quad $Q --quant requant --cold --sweep-path quad --blocks x --requantization float --sweep '8,8,4;8,16,1;16,8,2;16,4,4'
t e-shared $P --quant both
t f-cold $P --quant both --cold
grep -h ' rewrite\| copy (shader)' $OUT/r/*.txt | head -40
