# Sourced by smoke.sh and long-run.sh: the targets, how they are built, and
# each target's seeds and input size (fuzz/README.md).

targets="preprocess compile variant_build splice includes large device item_form blob_words"

# The seed directories of target $1.
seeds_of() {
  case $1 in
    device) echo seeds-device ;;
    blob_words) echo seeds-blobs ;;
    includes) echo seeds-includes seeds ;;
    large) echo seeds-large seeds ;;
    *) echo seeds ;;
  esac
}

# libFuzzer's -max_len for target $1: the `large` target takes 1 MiB.
max_len_of() {
  case $1 in
    large) echo 1048576 ;;
    blob_words) echo 65536 ;;
    *) echo 8192 ;;
  esac
}

# Builds every target with cargo alone, with cargo-fuzz's instrumentation
# (`cargo fuzz build -s none -a`), on the host target only so build scripts
# and proc-macros stay uninstrumented. $1: `smoke` (fast to build: no compare
# tracing, naga unoptimized) or `long` (compare tracing, naga optimized).
# Sets $bin to the directory of the binaries.
build_targets() {
  local profile=$1 host target_dir flags
  host=$(rustc -vV | sed -n 's/^host: //p')
  target_dir=${CARGO_TARGET_DIR:-$PWD/target}
  flags="-Cpasses=sancov-module -Cllvm-args=-sanitizer-coverage-level=4 \
-Cllvm-args=-sanitizer-coverage-inline-8bit-counters -Cllvm-args=-sanitizer-coverage-pc-table \
--cfg fuzzing -Cdebug-assertions"
  if [ "$profile" = long ]; then
    flags="$flags -Cllvm-args=-sanitizer-coverage-trace-compares"
  fi
  RUSTFLAGS="$flags" cargo build --locked --profile "$profile" --target "$host" --bins \
    --target-dir "$target_dir"
  bin="$target_dir/$host/$profile"
}
