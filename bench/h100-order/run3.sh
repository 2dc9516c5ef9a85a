#!/bin/bash
# Issue 16, 2026-12-06 (session 33), call 3: the whole benchmark in one run, every kernel and copy
# reading its own copy of the input (--cold); then why a swept tile kernel reads slower than the
# same kernel as "path tile".
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt; cat $OUT/gpu.txt
s=$(date +%s)
timeout 440 ./.h/q8ta_bench --cold --reps 10 --warmup 2 --rows 8 --json $OUT/raw-cold.json --svg $OUT/raw-cold.svg > $OUT/raw-cold.txt 2>&1
echo "bench rc=$? $(( $(date +%s) - s ))s"
tail -2 $OUT/raw-cold.txt
B=./.h/q8ta_bench_x
L='8,256,256,256;16,256,256,256'
mkdir -p $OUT/r
t() { local name=$1 p=$2; shift 2; local s=$(date +%s); timeout 40 "$B" --cases $L --reps 10 --warmup 2 --cold --pairs $p --quant requant "$@" --json $OUT/r/$name.json > $OUT/r/$name.txt 2>&1; echo "$name rc=$? $(( $(date +%s) - s ))s"; }
Q='4C1W->4C'
t k1-sweep-plain $Q --sweep-path tile --sweep '4,8,2'
t k2-locals $Q --sweep-path tile --locals .h/tile-locals.json
t k5-cc-default '4C->4C'
t k6-cc-sweep '4C->4C' --sweep-path quad --sweep '16,4,4'
grep -h 'path tile\|path quad\|rewrite 4\|rewrite 16' $OUT/r/*.txt | cut -c1-130
cd $OUT && tar czf r.tgz r && rm -rf r
