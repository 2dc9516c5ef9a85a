#!/bin/bash
# Issue 16, 2026-12-06 (session 33), call 5: the small tensors passthrough with the pairs path as the
# rule on a discrete GPU below 2^19 elements (the seed's H = 16, 24, 32 and the main job's shapes).
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt; cat $OUT/gpu.txt
s=$(date +%s)
timeout 150 ./.h/q8ta_bench --cases '1,256,16,16;1,256,24,24;1,256,32,32;1,64,64,64;1,32,32,32;1,16,64,64;1,8,64,64' --quant passthrough --reps 10 --warmup 2 --json $OUT/small.json > $OUT/small.txt 2>&1
echo "bench rc=$? $(( $(date +%s) - s ))s"
grep -c rewrite $OUT/small.txt
