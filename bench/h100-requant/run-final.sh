#!/bin/bash
# Issue 16, 2026-12-06, last call: the final rule (pairs 8x8x1 passthrough, pairs in f32 requantizing
# into 4C1W from 4C) on the large tensors of the pairs it changes, with 4C1W -> 4C beside.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt; cat $OUT/gpu.txt
s=$(date +%s)
timeout 150 ./.h/q8ta_bench_final --cases large --reps 10 --warmup 2 --pairs '4C->4C1W,4C1W->4C' --quant both --json $OUT/final.json > $OUT/final.txt 2>&1
echo "final rc=$? $(( $(date +%s) - s ))s"
grep rewrite $OUT/final.txt
