#!/usr/bin/env bash
# CI smoke run of the fuzz targets (fuzz/README.md): builds them with cargo
# alone (stable Rust, libFuzzer from libfuzzer-sys, no sanitizer, no
# cargo-fuzz install), then fuzzes each target for a few seconds from its
# seeds and the committed regression inputs, one target per core at a time.
# Exits non-zero on a crash, a contract violation (panic outside naga,
# internal error), or a timeout.
#
#   SMOKE_SECONDS=15 fuzz/smoke.sh     # seconds per target (default 10)
#   SMOKE_JOBS=1 fuzz/smoke.sh         # targets at a time (default: the cores)
set -euo pipefail
cd "$(dirname "$0")"
. ./common.sh
secs=${SMOKE_SECONDS:-10}
build_targets smoke

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# One target per core at a time (each target is one process, one thread):
# every target still fuzzes for $secs seconds of its own.
jobs=${SMOKE_JOBS:-$(nproc)}

# Fuzzes target $1; its log in $work/$1.log, its exit status in $work/$1.status.
fuzz_one() {
  local t=$1 rc=0
  mkdir -p "$work/$t" "$work/$t-artifacts"
  # The committed regression inputs of this target start its corpus.
  for f in ../tests/fuzz-regressions/"$t"-*; do
    [ -f "$f" ] && cp "$f" "$work/$t/"
  done
  # shellcheck disable=SC2046
  "$bin/$t" "$work/$t" $(seeds_of "$t") -max_total_time="$secs" \
      -dict=glsl.dict -timeout=30 -rss_limit_mb=4096 -max_len="$(max_len_of "$t")" \
      -artifact_prefix="$work/$t-artifacts/" -print_final_stats=1 \
      > "$work/$t.log" 2>&1 || rc=$?
  echo "$rc" > "$work/$t.status"
}

echo "== fuzzing each target for ${secs}s, $jobs at a time: $targets"
for t in $targets; do
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
    wait -n || true
  done
  fuzz_one "$t" &
done
wait

status=0
passed=0
failed=0
for t in $targets; do
  echo "== $t: ${secs}s"
  if [ "$(cat "$work/$t.status" 2>/dev/null || echo missing)" != 0 ]; then
    status=1
    failed=$((failed + 1))
    echo "!! $t failed; the end of its log:"
    tail -40 "$work/$t.log"
    for a in "$work/$t-artifacts"/*; do
      [ -f "$a" ] && echo "crash input (base64): $(base64 -w0 "$a")"
    done
  else
    passed=$((passed + 1))
  fi
  grep -h '^stat::number_of_executed_units\|^stat::new_units_added' "$work/$t.log" || true
done
# Each target fuzzed without a finding counts as one passed test.
echo "fuzzed: $passed passed, $failed failed"
exit $status
