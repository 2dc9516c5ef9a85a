#!/bin/bash
# Issue 16, 2026-12-06 (session 33), call 6: the main job on the GPU, then the q8ta GPU tests under
# the validation layer, with the pairs path as the small-tensor passthrough rule.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version --format=csv > $OUT/gpu.txt; cat $OUT/gpu.txt
timeout 40 ./.h/q8ta_pixel_shuffle > $OUT/main-job.txt 2>&1; echo "main job rc=$?"
s=$(date +%s)
CI=1 timeout 220 ./.h/q8ta_gpu-tests --test-threads=1 > $OUT/q8ta-gpu-tests.txt 2>&1
echo "tests rc=$? $(( $(date +%s) - s ))s"
tail -3 $OUT/q8ta-gpu-tests.txt
