#!/usr/bin/env bash
# The library at scale (BENCHMARKS.md, "A library of 255 shaders"): the
# generated library tests/library/shaders/ through include_ncnn_library!
# (bench/library/), from the repository root or anywhere.
#
#   bash bench/library.sh build     cold build, build with a warm compile cache,
#                                   a one-shader edit; the embedded payload
#   bash bench/library.sh startup [DEVICE]
#                                   start-up to the first result of a 50-pipeline
#                                   chain, cold and with the pipeline cache warm,
#                                   3 times each (DEVICE: type:cpu by default)
#
# Results go to bench/results/<cpu|lavapipe|...>/library/, each stamped with
# the git revision, the machine or device, and the command.
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-}
shift || true
manifest=bench/library/Cargo.toml
export CARGO_TARGET_DIR=${CARGO_TARGET_DIR:-bench/library/target}
rev=$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- ncnn-glsl-core ncnn-glsl-macros ncnn-glsl-runtime tests/library bench/library || echo -dirty)
now() { date +%s.%N; }
since() { python3 -c "import sys; print(round(float(sys.argv[2]) - float(sys.argv[1]), 2))" "$1" "$(now)"; }

case "$what" in
build)
    out=bench/results/cpu/library
    mkdir -p "$out"
    work=$(mktemp -d)
    export NCNN_GLSL_CACHE_DIR=$work/compile-cache
    edited=tests/library/shaders/unary/relu_pack4.comp
    cp "$edited" "$work/saved.comp"
    trap 'cp "$work/saved.comp" "$edited"; rm -rf "$work"' EXIT
    build() { cargo build --release -q --manifest-path "$manifest" --bins; }
    # The dependencies (the runtime, the macro with naga) are built first, not measured.
    cargo build --release -q --manifest-path "$manifest" -p ncnn-glsl-runtime
    cargo clean --release -q --manifest-path "$manifest" -p ncnn-glsl-library-bench
    rm -rf "$NCNN_GLSL_CACHE_DIR"
    t=$(now); build; cold=$(since "$t")
    cargo clean --release -q --manifest-path "$manifest" -p ncnn-glsl-library-bench
    t=$(now); build; warm=$(since "$t")
    # One line of one shader changes its text (every mode), the rest hit the
    # caches: the library crate rebuilt, then again with the two binaries
    # that link it.
    echo "const int bench_edit = $RANDOM;" >> "$edited"
    t=$(now); cargo build --release -q --manifest-path "$manifest" --lib; edit=$(since "$t")
    build
    echo "const int bench_edit_bins = $RANDOM;" >> "$edited"
    t=$(now); build; edit_bins=$(since "$t")
    cp "$work/saved.comp" "$edited"
    build
    payload=$("$CARGO_TARGET_DIR/release/payload")
    strip -o "$work/payload.stripped" "$CARGO_TARGET_DIR/release/payload"
    size=$(stat -c %s "$work/payload.stripped")
    python3 - "$out/build.json" "$rev" "$cold" "$warm" "$edit" "$edit_bins" "$size" "$payload" <<'EOF'
import json, os, platform, sys
path, rev, cold, warm, edit, edit_bins, size, payload = sys.argv[1:]
json.dump({
    "revision": rev,
    "device": "cpu: %s, %d cores" % (platform.processor() or platform.machine(), os.cpu_count()),
    "command": "bash bench/library.sh build",
    "cold_build_s": float(cold),
    "build_with_warm_compile_cache_s": float(warm),
    "one_shader_edit_rebuild_s": float(edit),
    "one_shader_edit_rebuild_with_two_binaries_s": float(edit_bins),
    "payload_binary_stripped_bytes": int(size),
    "payload": json.loads(payload),
}, open(path, "w"), indent=2)
print(open(path).read())
EOF
    ;;
startup)
    device=${1:-type:cpu}
    cargo build --release -q --manifest-path "$manifest" --bins
    bin=$CARGO_TARGET_DIR/release/startup
    name=$(case "$device" in type:cpu) echo lavapipe ;; *) echo gpu ;; esac)
    out=bench/results/$name/library
    mkdir -p "$out"
    work=$(mktemp -d)
    trap 'rm -rf "$work"' EXIT
    # Cold means cold: the drivers' own disk caches (Mesa's, NVIDIA's) are
    # off, so the only cache a warm run has is the runtime's pipeline cache.
    export MESA_SHADER_CACHE_DISABLE=true __GL_SHADER_DISK_CACHE=0
    runs=()
    for i in 1 2 3; do
        rm -rf "$work/cache"
        runs+=("$("$bin" "$device" "$work/cache")")
        runs+=("$("$bin" "$device" "$work/cache")")
    done
    python3 - "$out/startup.json" "$rev" "$device" "${runs[@]}" <<'EOF'
import json, subprocess, sys
path, rev, device = sys.argv[1:4]
runs = [json.loads(r) for r in sys.argv[4:]]
try:
    info = subprocess.run(["vulkaninfo", "--summary"], capture_output=True, text=True).stdout
    driver = next((l.split("=", 1)[1].strip() for l in info.splitlines() if "driverInfo" in l), "")
except OSError:
    driver = ""
json.dump({
    "revision": rev,
    "device": runs[0]["device"],
    "driver": driver,
    "command": "bash bench/library.sh startup %s" % device,
    "cold": runs[0::2],
    "warm_pipeline_cache": runs[1::2],
}, open(path, "w"), indent=2)
print(open(path).read())
EOF
    ;;
*)
    sed -n '2,13p' "$0" >&2
    exit 2
    ;;
esac
