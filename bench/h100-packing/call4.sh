#!/bin/bash
# Issue 16, session 34, call 4: where the H100's 1.4 points on 4W4C -> 4C requantizing went: old
# (6b4c384), new (0b0697f) and c (0b0697f with bench/lavapipe-packing/xor-only.patch), three
# rounds alternating, at [8,256,256,256] requantizing on three pairs.
for f in .gl/*.deb; do dpkg -x $f / ; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
H=$PWD/.h; mkdir -p /tmp/o4; cd /tmp/o4; t0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv > gpu.txt; cat gpu.txt
for i in 1 2 3; do for b in old new c; do
  [ $(( $(date +%s) - t0 )) -gt 400 ] && break 2
  timeout 100 $H/bench-$b --cases "8,256,256,256" --quant requant --pairs "4W4C->4C,4C->4C,4C1W->4C" --reps 10 --warmup 2 --json $b-$i.json > $b-$i.txt 2>&1
  echo "$b $i rc=$? $(( $(date +%s) - t0 ))s"
done; done
tar czf $OUT/call4.tgz *
