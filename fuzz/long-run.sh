#!/usr/bin/env bash
# Long runs, one target after another, one libFuzzer worker:
#   fuzz/long-run.sh "includes:420 large:420 device:300 compile:300 splice:300"
# Builds the targets with compare tracing and naga optimized (common.sh,
# profile `long`), then runs each for its seconds of wall time; after a crash
# (saved under artifacts/<target>/) it restarts on the grown corpus until its
# time is up. Logs: logs/<target>.<n>.log, logs/summary.log.
#
# FUZZ_BIN=DIR runs the binaries already built into DIR (for a machine
# without Rust: build them here, carry them there); FUZZ_PARALLEL=1 runs
# the targets at the same time, one worker each, on a machine with the cores.
set -u
cd "$(dirname "$0")"
. ./common.sh
if [ -n "${FUZZ_BIN:-}" ]; then
  bin=$FUZZ_BIN
else
  build_targets long || exit 1
fi
mkdir -p logs
run_target() {
  local spec=$1 t secs end n left rc
  t=${spec%%:*}; secs=${spec##*:}
  mkdir -p corpus/$t artifacts/$t
  end=$(( $(date +%s) + secs )); n=0
  while [ "$(date +%s)" -lt $((end - 5)) ]; do
    left=$(( end - $(date +%s) ))
    n=$((n + 1))
    echo "$(date -u +%T) $t run $n for ${left}s" >> logs/summary.log
    # shellcheck disable=SC2046
    "$bin/$t" corpus/$t $(seeds_of "$t") -max_total_time=$left -dict=glsl.dict \
      -timeout=30 -rss_limit_mb=4096 -max_len="$(max_len_of "$t")" \
      -artifact_prefix=artifacts/$t/ -print_final_stats=1 > logs/$t.$n.log 2>&1
    rc=$?
    echo "$(date -u +%T) $t run $n exit $rc $(grep -h 'number_of_executed_units\|^stat::new_units\|peak_rss' logs/$t.$n.log | tr '\n' ' ')" >> logs/summary.log
  done
}
for spec in ${1:-includes:420 large:420 device:300 compile:300 splice:300}; do
  if [ "${FUZZ_PARALLEL:-0}" = 1 ]; then
    run_target "$spec" &
  else
    run_target "$spec"
  fi
done
wait
echo "$(date -u +%T) all done" >> logs/summary.log
