#!/bin/bash
# Issue 16, 2026-12-06 (session 34): the f32 requantization's packing on lavapipe (this machine,
# 2 cores), three builds alternating twice: old = 6b4c384 (a mask and shift per byte), new =
# 0b0697f (two results at a time), c = 0b0697f with xor-only.patch (the sign flip once per word,
# the old packing). Each build's q8ta_bench copied to /tmp/ab/bench-{old,new,c} first.
cd /tmp/ab
for i in 1 2; do for b in old new c; do
  ./bench-$b --cases "1,256,64,64;1,256,128,128;1,64,64,64" --quant requant --reps 5 --warmup 1 \
    --json $b-$i.json > $b-$i.txt 2>&1
done; done
