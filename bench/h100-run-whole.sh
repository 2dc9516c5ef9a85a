#!/bin/bash
# Issue 16, 2026-12-06 (session 33), call 4: the whole benchmark in one run with the build of HEAD (5aa7bd3).
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt; cat $OUT/gpu.txt
s=$(date +%s)
timeout 575 ./.h/q8ta_bench --reps 10 --warmup 2 --rows 8 --json $OUT/raw.json --svg $OUT/raw.svg > $OUT/raw.txt 2>&1
echo "bench rc=$? $(( $(date +%s) - s ))s"
tail -2 $OUT/raw.txt
