#!/bin/sh
# Run each libFuzzer target named on the command line for FUZZ_SECONDS
# (mk/fuzz.mk builds them). Seeds come from corpus/ and suite/data, extracted
# now into $BUILD/fuzz/seeds; what a run finds is kept in
# $BUILD/fuzz/work/<target> (the working corpus) and a failing input in
# $BUILD/fuzz/artifacts/<target>/. Prints one summary line per target:
#   fuzz: <target> ok|FAILED  <execs> execs, <execs/s> execs/s, cov <edges>, ft <features>
# Exit 1 when any target failed (crash, leak, timeout, OOM, property violated).
BUILD=${BUILD:-build/fuzz}
FUZZ_SECONDS=${FUZZ_SECONDS:-60}
seeds=$BUILD/fuzz/seeds
rm -rf "$seeds"
"$BUILD/fuzz/seed_extract" "$seeds" corpus suite/data || exit 1
# the reference adapter's requests: the shapes the runner sends (target_adapter.c)
mkdir -p "$seeds/request"
printf '%s' '{"cmd":"check","seq":1,"id":"a","gate":"syntax","raw_base64":"e30=","schema":null,"formats":false,"reject_nul":false,"max_bytes":0,"schemas_dir":null,"case":{"id":"a"}}' >"$seeds/request/plain"
printf '%s' '{"cmd":"check","seq":2,"id":"b","gate":"structure","raw_base64":"WzFd","schema":{"type":"array"},"formats":true,"reject_nul":true,"max_bytes":16777216,"remotes_dir":"/tmp"}' >"$seeds/request/schema"
printf '%s' '{"cmd":"check","seq":3,"id":"c","gate":"syntax","raw_base64":"e30=","max_bytes":1e300}' >"$seeds/request/huge"
status=0
for target in "$@"; do
    case $target in
        fuzz_syntax) dirs="$seeds/syntax" ;;
        fuzz_schema) dirs="$seeds/schema" ;;
        fuzz_stream) dirs="$seeds/stream" ;;
        fuzz_corpus) dirs="corpus suite/data/loader" ;;
        fuzz_adapter_reply) dirs="$seeds/reply" ;;
        fuzz_adapter_request) dirs="$seeds/request" ;;
        fuzz_wire) dirs="$seeds/wire" ;;
        fuzz_mock) dirs="$seeds/mock" ;;
        *) dirs="" ;;
    esac
    work=$BUILD/fuzz/work/$target
    artifacts=$BUILD/fuzz/artifacts/$target
    mkdir -p "$work" "$artifacts"
    log=$BUILD/fuzz/$target.log
    # -timeout: one input may take 10 s; -rss_limit_mb: 2 GiB; leaks are checked (ASan's LeakSanitizer)
    "$BUILD/fuzz/$target" "$work" $dirs -max_total_time="$FUZZ_SECONDS" -timeout=10 -rss_limit_mb=2048 \
        -max_len=65536 -print_final_stats=1 -detect_leaks=1 -artifact_prefix="$artifacts/" >"$log" 2>&1
    rc=$?
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -n 1)
    cov=$(grep -oE 'cov: [0-9]+' "$log" | tail -n 1 | cut -d' ' -f2)
    ft=$(grep -oE 'ft: [0-9]+' "$log" | tail -n 1 | cut -d' ' -f2)
    if [ "$rc" -eq 0 ]; then verdict=ok; else verdict=FAILED; status=1; fi
    echo "fuzz: $target $verdict  ${execs:-0} execs, ${rate:-0} execs/s, cov ${cov:-0}, ft ${ft:-0}"
    if [ "$rc" -ne 0 ]; then
        grep -E 'ERROR|SUMMARY|fuzz property|Test unit written' "$log" | head -n 8 | sed 's/^/    /'
    fi
done
exit $status
