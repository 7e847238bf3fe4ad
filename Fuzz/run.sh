#!/bin/sh
# Runs one fuzz target (built by `make fuzz-build` in .build-fuzz) for SECONDS seconds, niced, on its checked-in seeds
# (Fuzz/corpus/TARGET, only read) and its working corpus (.build-fuzz/corpus/TARGET, where libFuzzer adds what it
# finds). Prints libFuzzer's last status line (executions, cov:, exec/s) and its final statistics; the full log is
# .build-fuzz/logs/TARGET.log. A crash, leak or hang (-timeout) leaves its input in .build-fuzz/crashes/TARGET/ and
# makes this script exit non-zero: replay it with `.build-fuzz/debug/TARGET FILE`.
# Usage: Fuzz/run.sh TARGET [SECONDS] [extra libFuzzer flags...]
set -u
target=$1
seconds=${2:-60}
[ $# -ge 2 ] && shift 2 || shift $#
binary=.build-fuzz/debug/$target
[ -x "$binary" ] || { echo "fuzz: $binary is not built (make fuzz-build)"; exit 2; }
mkdir -p ".build-fuzz/corpus/$target" ".build-fuzz/crashes/$target" .build-fuzz/logs
log=.build-fuzz/logs/$target.log
echo "fuzz: $target for ${seconds}s (log: $log)"
# Leaks in code not ours (the toolchain's Foundation) are suppressed, each with its reason, in Fuzz/lsan.supp.
LSAN_OPTIONS="suppressions=$(pwd)/Fuzz/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}" \
nice -n "${FUZZ_NICE:-15}" "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -print_final_stats=1 \
    -artifact_prefix=".build-fuzz/crashes/$target/" "$@" ".build-fuzz/corpus/$target" "Fuzz/corpus/$target" >"$log" 2>&1
status=$?
grep -E '^#[0-9]+[[:space:]]+(DONE|pulse|NEW|REDUCE|INITED)' "$log" | tail -1
grep -E '^stat::(number_of_executed_units|average_exec_per_sec|new_units_added|peak_rss_mb)' "$log" | awk '!seen[$0]++'
if [ $status -ne 0 ]; then
    echo "fuzz: $target FAILED (exit $status): libFuzzer's report:"
    grep -E 'ERROR: |SUMMARY: |Fatal error|Test unit written to' "$log" | head -8
fi
exit $status
