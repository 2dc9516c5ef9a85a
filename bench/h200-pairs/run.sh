#!/bin/bash
# Issue 16, 2026-12-06, on the H200 right after run-whole.sh (same warm machine): the pairs path into 4C1W from 4C,
# requantizing from 4C1W into 4C, then the q8ta GPU tests under validation.
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt; cat $OUT/gpu.txt
B=./.h/q8ta_bench
L='8,256,256,256;16,256,256,256'
mkdir -p $OUT/r
t() { local name=$1 p=$2; shift 2; local s=$(date +%s); timeout 60 "$B" --cases $L --reps 10 --warmup 2 --pairs $p "$@" --json $OUT/r/$name.json > $OUT/r/$name.txt 2>&1; echo "$name rc=$? $(( $(date +%s) - s ))s"; }
P='4C->4C1W'; Q='4C1W->4C'
t a-shipped $P --quant both
t b-pass-x $P --quant passthrough --sweep-path pairs --blocks x --sweep '8,4,1;8,8,1;16,4,1;8,16,1;4,8,1'
t c-req-float $P --quant requant --sweep-path pairs --blocks x --requantization float --sweep '8,4,1;8,8,1;8,16,1;8,32,1;16,8,1'
t d-req-mixed $P --quant requant --sweep-path pairs --blocks x --requantization mixed --sweep '8,32,1;8,64,1' --rows 3,4
t e-shipped $Q --quant requant
t f-q-pairs-float $Q --quant requant --sweep-path pairs --blocks x --requantization float --sweep '8,4,1;8,8,1;8,16,1;16,4,1'
t g-q-tile-float $Q --quant requant --sweep-path tile --blocks x --requantization float --sweep '4,8,2;4,16,2;8,8,2;4,8,4;4,4,4'
t h-q-quad-float $Q --quant requant --sweep-path quad --blocks x --requantization float --sweep '16,4,4;8,8,4;16,8,2;8,16,1'
B=./.h/q8ta_bench_pf t k-candidate $P --quant requant
t i-shipped $P --quant both
t j-shipped $Q --quant requant
s=$(date +%s)
CI=1 timeout 230 ./.h/q8ta_gpu-tests --test-threads=1 > $OUT/r/q8ta-gpu-tests.txt 2>&1
echo "tests rc=$? $(( $(date +%s) - s ))s"
tail -4 $OUT/r/q8ta-gpu-tests.txt
cd $OUT && tar czf r.tgz r && rm -rf r
