#!/usr/bin/env bash
# Long runs, one target after another, one libFuzzer worker:
#   fuzz/long-run.sh "preprocess:540 compile:600 variant_build:540 splice:480"
# Each target runs for its seconds of wall time; after a crash (saved under
# artifacts/<target>/) it restarts on the grown corpus until its time is up.
# Logs: logs/<target>.<n>.log.
set -u
cd "$(dirname "$0")"
export RUSTC_BOOTSTRAP=1
mkdir -p logs
for spec in ${1:-preprocess:540 compile:600 variant_build:540 splice:480}; do
  t=${spec%%:*}; secs=${spec##*:}
  mkdir -p corpus/$t
  end=$(( $(date +%s) + secs )); n=0
  while [ $(date +%s) -lt $((end - 5)) ]; do
    left=$(( end - $(date +%s) ))
    n=$((n + 1))
    echo "$(date -u +%T) $t run $n for ${left}s" >> logs/summary.log
    cargo fuzz run -a -s none "$t" corpus/$t seeds -- \
      -max_total_time=$left -dict=glsl.dict -timeout=30 -rss_limit_mb=4096 \
      -max_len=8192 -print_final_stats=1 > logs/$t.$n.log 2>&1
    rc=$?
    echo "$(date -u +%T) $t run $n exit $rc $(grep -h 'number_of_executed_units\|^stat::new_units' logs/$t.$n.log | tr '\n' ' ')" >> logs/summary.log
  done
done
echo "$(date -u +%T) all done" >> logs/summary.log
