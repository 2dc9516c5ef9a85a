#!/usr/bin/env bash
# The q8ta measurements on an NVIDIA GPU. The GPU machine has no Rust: build
# the programs here first, carry .bench-bin/ (ignored by git) there, and run
# the same script there (BENCHMARKS.md, "Running"). Each run writes a result
# file stamped with the git revision (of the build), device, driver and
# command, into $OUT when it is set (the GPU machine's output folder), else
# bench/results/nvidia/.
#
#   bash bench/nvidia.sh build [WHAT]    here: release binaries and GPU test binaries into .bench-bin/,
#                                        WHAT q8ta, coopmat or layers (q8ta and coopmat by default)
#   bash bench/nvidia.sh whole           the whole benchmark (the seed's 81 cases and the large tensors)
#   bash bench/nvidia.sh sweep ARGS...   q8ta_bench with ARGS (a sweep: --sweep, --cases, ...)
#   bash bench/nvidia.sh tests           the q8ta GPU tests with the ignored whole product (and contexts_on_threads)
#   bash bench/nvidia.sh layer           here: a validation layer that knows VK_KHR_cooperative_matrix into .vl/
#   bash bench/nvidia.sh coopmat         the cooperative-matrix tests, array_lengths and contexts_on_threads (every mode, under .vl/'s layer) and the GEMM benchmark
#   bash bench/nvidia.sh layers          ncnn's layers (tests/ncnn_layers.rs) in every mode, against glslang's blobs and timed
set -euo pipefail
cd "$(dirname "$0")/.."
what=${1:-}
shift || true
bin=.bench-bin
out=${OUT:-bench/results/nvidia}
stamp=$(date -u +%Y%m%d-%H%M%S)
# What the programs are built from: changes elsewhere do not make a result "-dirty".
sources="bench ncnn-glsl-q8ta ncnn-glsl-runtime ncnn-glsl-core ncnn-glsl-macros shaders testkit Cargo.toml Cargo.lock"
# The executable of a test target: $1 the package, $2 the test.
test_exe() {
    cargo test --release -q -p "$1" --test "$2" --no-run --message-format=json \
        | sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1
}
if [ "$what" = build ]; then
    parts=${1:-q8ta coopmat}
    cargo build --release -q -p ncnn-glsl-bench --bins
    rm -rf "$bin"
    mkdir -p "$bin"
    case $parts in *q8ta*)
        cp target/release/q8ta_bench target/release/bandwidth target/release/store_cost "$bin/"
        cp "$(test_exe ncnn-glsl-q8ta gpu)" "$bin/q8ta_gpu_tests" ;;
    esac
    case $parts in *coopmat*)
        cp target/release/coopmat_gemm "$bin/"
        cp "$(test_exe ncnn-glsl-runtime coopmat_gemm)" "$bin/coopmat_gemm_test"
        cp "$(test_exe ncnn-glsl-runtime coopmat_corpus)" "$bin/coopmat_corpus_test"
        cp "$(test_exe ncnn-glsl-runtime coopmat_shapes)" "$bin/coopmat_shapes_test"
        cp "$(test_exe ncnn-glsl-runtime coopmat_bounds)" "$bin/coopmat_bounds_test"
        cp "$(test_exe ncnn-glsl-runtime array_lengths)" "$bin/array_lengths_test"
        cp "$(test_exe ncnn-glsl-runtime contexts_on_threads)" "$bin/contexts_on_threads_test" ;;
    esac
    case $parts in *layers*)
        # ncnn's shaders travel with the test: the GPU machine has no ncnn checkout.
        : "${NCNN_SHADER_DIR:?set it to the shader folder of an ncnn checkout (src/layer/vulkan/shader)}"
        cp "$(test_exe ncnn-glsl-runtime ncnn_layers)" "$bin/ncnn_layers_test"
        mkdir -p "$bin/ncnn-shader"
        cp "$NCNN_SHADER_DIR"/*.comp "$bin/ncnn-shader/" ;;
    esac
    strip "$bin"/*_test "$bin"/q8ta_bench "$bin"/bandwidth "$bin"/store_cost "$bin"/coopmat_gemm 2>/dev/null || true
    # The test compares with glslang's blobs, and Debian 12's glslang does
    # not know GL_KHR_cooperative_matrix: CI's glslang 13.1.1 (.ci/run's
    # venv), where it was installed here.
    tools=${NCNN_GLSL_COOPMAT_TOOLS:-$(echo /tmp/ncnn-glsl-coopmat-tools/lib/python3*/site-packages/cmeel.prefix/bin)}
    case $parts in *coopmat*|*layers*)
        if [ -x "$tools/glslangValidator" ]; then
            mkdir -p "$bin/glslang-khr"
            cp "$tools/glslangValidator" "$tools"/../lib/{libglslang.so.13,libSPIRV.so.13,libglslang-default-resource-limits.so.13,libSPIRV-Tools-shared.so} "$bin/glslang-khr/"
            strip "$bin"/glslang-khr/*
        else
            echo "no glslang 13 at $tools: the GPU test will not compare matrix blobs (run .ci/run's venv step)" >&2
        fi ;;
    esac
    echo "$(git rev-parse --short=12 HEAD)$(git diff --quiet HEAD -- $sources || echo -dirty)" >"$bin/REVISION"
    echo "built $(cat "$bin/REVISION") into $bin/"
    exit 0
fi
if [ "$what" = layer ]; then
    # Debian 12's layer (1.3.239) predates VK_KHR_cooperative_matrix and calls
    # every module that uses it invalid; Debian 13's (1.4.309) reads a
    # specialization constant's value from the map entry whose index is its
    # constant_id, and so calls a matrix sized by any value but the default
    # unsupported. sid's (1.4.363) is right, and needs a newer glibc and
    # libstdc++: .vl/ gets it with sid's libc6, libstdc++6, libgcc-s1 and
    # loader, and `coopmat` runs the test on that dynamic loader, leaving the
    # system's libraries as they are (.ci/lavapipe-coopmat does the same).
    bash .ci/fetch-debs .vl vulkan-validationlayers/sid libvulkan1/sid libc6/sid libstdc++6/sid libgcc-s1/sid
    ls .vl
    exit 0
fi
[ -f "$bin/REVISION" ] || { echo "no $bin/: run 'bash bench/nvidia.sh build' first" >&2; exit 2; }
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
# The validation layer of .vl/ where it was carried (run the tests through
# `"${with_layer[@]}"`), a glslang that knows GL_KHR_cooperative_matrix
# where one was carried, and no implicit layers of the driver's.
layer_setup() {
    with_layer=()
    if ls .vl/*.deb >/dev/null 2>&1; then
        root=$(mktemp -d)
        for f in .vl/*.deb; do dpkg -x "$f" "$root"; done
        export VK_LAYER_PATH=$root/usr/share/vulkan/explicit_layer.d
        with_layer=("$root/usr/lib64/ld-linux-x86-64.so.2" --library-path "$root/usr/lib/x86_64-linux-gnu")
    fi
    # A glslang that knows GL_KHR_cooperative_matrix, where one was carried.
    if [ -x "$bin/glslang-khr/glslangValidator" ]; then
        export PATH=$PWD/$bin/glslang-khr:$PATH LD_LIBRARY_PATH=$PWD/$bin/glslang-khr${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
    fi
    # The loader puts a driver's implicit layers above the validation
    # layer, which reports their calls as the program's (on an H200: two
    # vkGetDeviceProcAddr calls for an instance-level video function the
    # project never names): none, unless the caller names a folder of them
    # (VK_LOADER_LAYERS_DISABLE would do it too, with a loader warning that
    # fails the test).
    implicit=$(ls /etc/vulkan/implicit_layer.d /usr/share/vulkan/implicit_layer.d /usr/local/nvidia/share/vulkan/implicit_layer.d 2>/dev/null | grep json | tr '\n' ' ' || true)
    # (an older loader, as without .vl/, may read its default folders anyway)
    if [ -z "${VK_IMPLICIT_LAYER_PATH+set}" ]; then
        VK_IMPLICIT_LAYER_PATH=$(mktemp -d)
        export VK_IMPLICIT_LAYER_PATH
    fi
}

case "$what" in
whole)
    "$bin/q8ta_bench" "${device[@]}" --reps 10 --warmup 2 --rows 8 \
        --json "$out/whole-run.json" --svg "$out/whole-run.svg" "$@"
    ;;
sweep)
    "$bin/q8ta_bench" "${device[@]}" --json "$out/sweep-$stamp.json" "$@"
    ;;
coopmat)
    layer_setup
    file="$out/gemm-test-$stamp.txt"
    failed=$(mktemp)
    {
        echo "# revision $(cat "$bin/REVISION"); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi')"
        echo "# validation layer: ${VK_LAYER_PATH:-the system layer}; implicit layers here: ${implicit:-none}, read from: ${VK_IMPLICIT_LAYER_PATH:-the default folders}; glslang: $(glslangValidator --version 2>&1 | head -1)"
        echo "# command: bash bench/nvidia.sh coopmat (cargo test --release -p ncnn-glsl-runtime --test coopmat_gemm -- --nocapture)"
        # Each runs whatever the others did, and the benchmark after them:
        # one GPU call gets all; the script fails after it if one failed.
        CI=true NCNN_REQUIRE_GLSLANG=1 NCNN_REQUIRE_COOPMAT=1 "${with_layer[@]}" "$bin/coopmat_gemm_test" --nocapture 2>&1 ||
            echo "# FAILED: exit $?" | tee -a "$failed"
        # contexts_on_threads: several test threads opening contexts, as
        # coopmat_corpus does, once took the process down on NVIDIA's driver.
        # coopmat_bounds: loads and stores past their buffers (KHR and NV);
        # array_lengths: specialized array lengths out of range refused.
        for t in coopmat_corpus coopmat_shapes coopmat_bounds array_lengths contexts_on_threads; do
            # A test left behind to fit the 64 MiB a call carries is said, not failed.
            [ -x "$bin/${t}_test" ] || { echo "# $t: not carried"; continue; }
            echo "# command: cargo test --release -p ncnn-glsl-runtime --test $t -- --include-ignored --nocapture"
            CI=true "${with_layer[@]}" "$bin/${t}_test" --include-ignored --nocapture 2>&1 ||
                echo "# FAILED: exit $?" | tee -a "$failed"
        done
    } | tee "$file"
    "$bin/coopmat_gemm" --gm 4096 --gn 4096 --gk 4096 --reps 20 --json "$out/gemm-$stamp.json"
    if [ -s "$failed" ]; then
        echo "a cooperative-matrix test failed: $file" >&2
        exit 1
    fi
    ;;
layers)
    layer_setup
    file="$out/ncnn-layers-$stamp.txt"
    {
        echo "# revision $(cat "$bin/REVISION"); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi')"
        echo "# command: NCNN_LAYERS_GLSLANG=ncnn-layers-vs-glslang-$stamp.md cargo test --release -p ncnn-glsl-runtime --test ncnn_layers -- --test-threads=1 --nocapture"
        CI=true NCNN_SHADER_DIR=$bin/ncnn-shader NCNN_LAYERS_GLSLANG="$out/ncnn-layers-vs-glslang-$stamp.md" \
            "${with_layer[@]}" "$bin/ncnn_layers_test" --test-threads=1 --nocapture 2>&1
    } | tee "$file"
    ;;
tests)
    file="$out/q8ta-gpu-tests-$stamp.txt"
    {
        echo "# revision $(cat "$bin/REVISION"); $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader 2>/dev/null || echo 'no nvidia-smi')"
        echo "# command: q8ta GPU tests (cargo test --release -p ncnn-glsl-q8ta --test gpu) -- --include-ignored"
        CI=true "$bin/q8ta_gpu_tests" --include-ignored 2>&1
        if [ -x "$bin/contexts_on_threads_test" ]; then
            echo "# command: cargo test --release -p ncnn-glsl-runtime --test contexts_on_threads"
            CI=true "$bin/contexts_on_threads_test" 2>&1
        fi
    } | tee "$file"
    ;;
*)
    sed -n '2,15p' "$0" >&2
    exit 2
    ;;
esac
