#!/bin/bash
# Issue 16, session 2026-12-05, call 1: the pairs path (PATH 3) swept into 4C1W from 4C.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt
cat $OUT/gpu.txt
B=./.h/q8ta_bench
L='8,256,256,256;16,256,256,256'
R="--cases $L --reps 10 --warmup 2 --pairs 4C->4C1W"
mkdir -p $OUT/r
t() { local name=$1; shift; local s=$(date +%s); "$B" $R "$@" --json $OUT/r/$name.json > $OUT/r/$name.txt 2>&1; echo "$name rc=$? $(( $(date +%s) - s ))s"; }
t a-shipped --quant both
t b-pass-x --quant passthrough --sweep-path pairs --blocks x --sweep '8,4,1;8,8,1;16,4,1;16,2,1;4,8,1;4,16,1;8,16,1;4,16,2;8,4,2'
t c-pass-y --quant passthrough --sweep-path pairs --blocks y --sweep '32,1,1;64,1,1;32,2,1;16,2,1;64,2,1;128,1,1;32,4,1;16,4,1'
t d-shipped --quant passthrough
t e-req-mixed --quant requant --sweep-path pairs --blocks x --requantization mixed --sweep '8,4,1;8,8,1;16,4,1;8,16,1;8,32,1' --rows 1,2,3,4
t f-req-float --quant requant --sweep-path pairs --blocks x --requantization float --sweep '8,4,1;8,8,1;16,4,1;8,16,1;8,32,1'
t g-req-mq --quant requant --sweep-path pairs --blocks x --requantization mixed-quarter --sweep '8,4,1;8,16,1;8,32,1' --rows 2,3,4
t h-req-mixed-y --quant requant --sweep-path pairs --blocks y --requantization mixed --sweep '32,1,1;32,2,1;64,1,1;16,4,1' --rows 1,3,4
t i-shipped --quant both
grep -h "rewrite\|copy" $OUT/r/*.txt | head -0
cd $OUT && tar czf r.tgz r && rm -rf r
