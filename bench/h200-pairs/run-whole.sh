#!/bin/bash
# Issue 16, 2026-12-06: 4C -> 4C1W requantizing with the rule of HEAD and with the candidate row
# (pairs in f32), then the whole benchmark in one run with the candidate build.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt; cat $OUT/gpu.txt
L='8,256,256,256;16,256,256,256'
for b in q8ta_bench q8ta_bench_pf; do
  timeout 40 ./.h/$b --cases $L --reps 10 --warmup 2 --pairs '4C->4C1W' --quant requant --json $OUT/cmp-$b.json > $OUT/cmp-$b.txt 2>&1
  echo "$b rc=$?"
done
s=$(date +%s)
timeout 500 ./.h/q8ta_bench_pf --reps 10 --warmup 2 --rows 8 --json $OUT/raw.json --svg $OUT/raw.svg > $OUT/raw.txt 2>&1
echo "bench rc=$? $(( $(date +%s) - s ))s"
tail -3 $OUT/raw.txt
