#!/bin/bash
# Issue 16, session 34, call 1: the f32 requantization's packing (old = HEAD 6b4c384, new = the
# working tree) at [8,256,256,256] requantizing, alternating builds; then the q8ta GPU tests of
# the new build under the validation layer.
for f in .gl/*.deb; do dpkg -x $f / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt; cat $OUT/gpu.txt
t0=$(date +%s)
for i in 1 2; do for b in old new; do
  s=$(date +%s)
  timeout 120 ./.h/bench-$b --cases "8,256,256,256" --quant requant --reps 10 --warmup 2 --json $OUT/ab-$b-$i.json > $OUT/ab-$b-$i.txt 2>&1
  echo "$b $i rc=$? $(( $(date +%s) - s ))s"
done; done
timeout 40 ./.h/q8ta_pixel_shuffle > $OUT/main-job.txt 2>&1; echo "main job rc=$?"
s=$(date +%s)
CI=1 timeout $(( 570 - (s - t0) )) ./.h/q8ta_gpu-tests --test-threads=1 > $OUT/q8ta-gpu-tests.txt 2>&1
echo "tests rc=$? $(( $(date +%s) - s ))s"; tail -3 $OUT/q8ta-gpu-tests.txt
