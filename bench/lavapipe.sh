#!/usr/bin/env bash
# The q8ta measurements on lavapipe (Mesa's CPU Vulkan driver), from the
# repository root or anywhere: builds in release, runs, and writes a result
# file stamped with the git revision, device, driver and command into
# bench/results/lavapipe/ (BENCHMARKS.md, "Running").
#
#   bash bench/lavapipe.sh whole          the whole benchmark (the seed's sizes, both quantizations)
#   bash bench/lavapipe.sh sweep ARGS...  q8ta_bench with ARGS (a sweep: --sweep, --cases, ...)
#   bash bench/lavapipe.sh tests          the ignored whole q8ta GPU test product
#   bash bench/lavapipe.sh layers         ncnn's layers (tests/ncnn_layers.rs) in every mode, against
#                                         glslang's blobs, timed (NCNN_SHADER_DIR: ncnn's shader folder)
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-}
shift || true
out=bench/results/lavapipe
mkdir -p "$out"
stamp=$(date -u +%Y%m%d-%H%M%S)
# What the programs are built from: changes elsewhere do not make a result "-dirty".
sources="bench ncnn-glsl-q8ta ncnn-glsl-runtime ncnn-glsl-core ncnn-glsl-macros shaders testkit Cargo.toml Cargo.lock"
# lavapipe only, whatever else the machine has.
device=(--device type:cpu)
case "$what" in
whole)
    cargo build --release -q -p ncnn-glsl-bench --bin q8ta_bench
    ./target/release/q8ta_bench "${device[@]}" \
        --cases "1,256,16,16;1,256,24,24;1,256,32,32;1,256,48,48;1,256,64,64;1,256,96,96;1,256,128,128;1,256,192,192;1,256,256,256;1,64,64,64;1,32,32,32;1,16,64,64;1,8,64,64" \
        --quant both --reps 5 --warmup 1 --json "$out/whole-run.json" "$@"
    ;;
sweep)
    cargo build --release -q -p ncnn-glsl-bench --bin q8ta_bench
    ./target/release/q8ta_bench "${device[@]}" --json "$out/sweep-$stamp.json" "$@"
    ;;
tests)
    rev=$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- $sources || echo -dirty)
    file="$out/q8ta-gpu-tests-$stamp.txt"
    {
        echo "# revision $rev; $(vulkaninfo --summary 2>/dev/null | grep -m1 -E 'deviceName' | xargs); $(vulkaninfo --summary 2>/dev/null | grep -m1 -E 'driverInfo' | xargs)"
        echo "# command: cargo test --release -p ncnn-glsl-q8ta --test gpu -- --include-ignored"
        VK_LOADER_DEBUG= CI=true cargo test --release -q -p ncnn-glsl-q8ta --test gpu -- --include-ignored 2>&1
    } | tee "$file"
    ;;
layers)
    rev=$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- $sources || echo -dirty)
    file="$out/ncnn-layers.txt"
    # Absolute: cargo runs a test in its package's folder.
    versus="$PWD/$out/ncnn-layers-vs-glslang.md"
    rm -f "$versus"
    : "${NCNN_SHADER_DIR:?set it to the shader folder of an ncnn checkout (src/layer/vulkan/shader)}"
    NCNN_SHADER_DIR=$(cd "$NCNN_SHADER_DIR" && pwd)
    export NCNN_SHADER_DIR
    {
        echo "# revision $rev; $(vulkaninfo --summary 2>/dev/null | grep -m1 -E 'deviceName' | xargs); $(vulkaninfo --summary 2>/dev/null | grep -m1 -E 'driverInfo' | xargs)"
        # A debug build: the times are the driver's (compiling pipelines, running dispatches).
        echo "# command: NCNN_LAYERS_GLSLANG=$versus cargo test -p ncnn-glsl-runtime --test ncnn_layers -- --test-threads=1 --nocapture"
        CI=true NCNN_LAYERS_GLSLANG=$versus cargo test -q -p ncnn-glsl-runtime --test ncnn_layers -- --test-threads=1 --nocapture 2>&1
    } | tee "$file"
    ;;
*)
    sed -n '2,13p' "$0" >&2
    exit 2
    ;;
esac
