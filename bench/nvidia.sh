#!/usr/bin/env bash
# The q8ta measurements on an NVIDIA GPU. The GPU machine has no Rust: build
# the programs here first, carry .bench-bin/ (ignored by git) there, and run
# the same script there (BENCHMARKS.md, "Running"). Each run writes a result
# file stamped with the git revision (of the build), device, driver and
# command, into $OUT when it is set (the GPU machine's output folder), else
# bench/results/nvidia/.
#
#   bash bench/nvidia.sh build           here: release binaries and the GPU test binary into .bench-bin/
#   bash bench/nvidia.sh whole           the whole benchmark (the seed's 81 cases and the large tensors)
#   bash bench/nvidia.sh sweep ARGS...   q8ta_bench with ARGS (a sweep: --sweep, --cases, ...)
#   bash bench/nvidia.sh tests           the q8ta GPU tests with the ignored whole product
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-}
shift || true
bin=.bench-bin
out=${OUT:-bench/results/nvidia}
stamp=$(date -u +%Y%m%d-%H%M%S)
# What the programs are built from: changes elsewhere do not make a result "-dirty".
sources="bench ncnn-glsl-q8ta ncnn-glsl-runtime ncnn-glsl-core ncnn-glsl-macros shaders testkit Cargo.toml Cargo.lock"
if [ "$what" = build ]; then
    cargo build --release -q -p ncnn-glsl-bench --bins
    test_bin=$(cargo test --release -q -p ncnn-glsl-q8ta --test gpu --no-run --message-format=json \
        | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
    mkdir -p "$bin"
    cp target/release/q8ta_bench target/release/bandwidth target/release/store_cost "$bin/"
    cp "$test_bin" "$bin/q8ta_gpu_tests"
    echo "$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- $sources || echo -dirty)" >"$bin/REVISION"
    echo "built $(cat "$bin/REVISION") into $bin/"
    exit 0
fi
[ -x "$bin/q8ta_bench" ] || { echo "no $bin/q8ta_bench: run 'bash bench/nvidia.sh build' first" >&2; exit 2; }
# The loader and the NVIDIA driver's ICD, where the machine has them unpacked
# from carried packages (.gl/*.deb) rather than installed.
if ls .gl/*.deb >/dev/null 2>&1 && ! ldconfig -p | grep -q 'libvulkan\.so\.1'; then
    for f in .gl/*.deb; do dpkg -x "$f" /; done
    ldconfig
fi
icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
[ -f "$icd" ] && export VK_DRIVER_FILES=$icd
mkdir -p "$out"
device=(--device type:discrete)
case "$what" in
whole)
    "$bin/q8ta_bench" "${device[@]}" --reps 10 --warmup 2 --rows 8 \
        --json "$out/whole-run.json" --svg "$out/whole-run.svg" "$@"
    ;;
sweep)
    "$bin/q8ta_bench" "${device[@]}" --json "$out/sweep-$stamp.json" "$@"
    ;;
tests)
    file="$out/q8ta-gpu-tests-$stamp.txt"
    {
        echo "# revision $(cat "$bin/REVISION"); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi')"
        echo "# command: q8ta GPU tests (cargo test --release -p ncnn-glsl-q8ta --test gpu) -- --include-ignored"
        CI=true "$bin/q8ta_gpu_tests" --include-ignored 2>&1
    } | tee "$file"
    ;;
*)
    sed -n '2,13p' "$0" >&2
    exit 2
    ;;
esac
