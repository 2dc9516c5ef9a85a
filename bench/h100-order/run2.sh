#!/bin/bash
# Issue 16, 2026-12-06 (session 33), call 2: does the tile path's time on 4C1W -> 4C requantizing depend
# on the kernel before it? (a build of q8ta_bench with two test switches: Q8TA_TILE_TWICE times the tile
# path again after the others, Q8TA_REVERSE reverses the order of the paths)
for f in .gl/*.deb; do dpkg -x $f /; done; ldconfig
export VK_DRIVER_FILES=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv > $OUT/gpu.txt; cat $OUT/gpu.txt
B=./.h/q8ta_bench_x
L='8,256,256,256;16,256,256,256'
mkdir -p $OUT/r
t() { local name=$1 p=$2; shift 2; local s=$(date +%s); timeout 70 "$B" --cases $L --reps 10 --warmup 2 --pairs $p "$@" --json $OUT/r/$name.json > $OUT/r/$name.txt 2>&1; echo "$name rc=$? $(( $(date +%s) - s ))s"; }
Q='4C1W->4C'
Q8TA_TILE_TWICE=1 t g-twice $Q --quant requant --cold
Q8TA_REVERSE=1 t h-reverse $Q --quant requant --cold
Q8TA_TILE_TWICE=1 Q8TA_REVERSE=1 t i-both $Q --quant requant --cold
Q8TA_REVERSE=1 t j-sweep-rev $Q --quant requant --cold --sweep-path tile --blocks x --requantization float --sweep '4,8,2;4,16,2;4,8,4'
grep -h 'path\|rewrite 4' $OUT/r/*.txt | cut -c1-130
cd $OUT && tar czf r.tgz r && rm -rf r
