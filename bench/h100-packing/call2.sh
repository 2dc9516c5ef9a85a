#!/bin/bash
# Issue 16, session 34, call 2: the whole benchmark in one run with the new packing of the f32
# requantization (the working tree on 6b4c384), then the main job; everything in one tar.
for f in .gl/*.deb; do dpkg -x $f / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
mkdir -p /tmp/o; cd /tmp/o
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > gpu.txt; cat gpu.txt
s=$(date +%s)
timeout 540 $OLDPWD/.h/bench-new --reps 10 --warmup 2 --rows 8 --json raw.json --svg raw.svg > raw.txt 2>&1
echo "bench rc=$? $(( $(date +%s) - s ))s"; tail -2 raw.txt
timeout 30 $OLDPWD/.h/q8ta_pixel_shuffle > main-job.txt 2>&1; echo "main job rc=$?"
tar czf $OUT/call2.tgz gpu.txt raw.json raw.svg raw.txt main-job.txt
