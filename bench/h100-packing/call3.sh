#!/bin/bash
# Issue 16, session 34, call 3: on an H200 only, the whole benchmark in one run with the new packing
# of the f32 requantization, the main job, and the q8ta GPU tests under the validation layer as
# time allows; on any other GPU, nothing (the H100's whole run is call 2).
for f in .gl/*.deb; do dpkg -x $f / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
H=$PWD/.h; t0=$(date +%s)
mkdir -p /tmp/o; cd /tmp/o
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > gpu.txt; cat gpu.txt
if ! grep -q H200 gpu.txt; then echo "not an H200: nothing run"; exit 0; fi
timeout 480 $H/bench-new --reps 10 --warmup 2 --rows 8 --json raw.json --svg raw.svg > raw.txt 2>&1
echo "bench rc=$? $(( $(date +%s) - t0 ))s"; tail -2 raw.txt
timeout 30 $H/q8ta_pixel_shuffle > main-job.txt 2>&1; echo "main job rc=$?"
tar czf $OUT/call3.tgz *
left=$(( 540 - ($(date +%s) - t0) ))
[ $left -gt 10 ] && CI=1 timeout $left $H/q8ta_gpu-tests --test-threads=1 > q8ta-gpu-tests.txt 2>&1
echo "tests rc=$? (limit ${left}s)"; tail -3 q8ta-gpu-tests.txt
tar czf $OUT/tests.tgz q8ta-gpu-tests.txt
