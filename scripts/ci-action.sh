#!/bin/sh
# ci-action.sh — the steps of the gauntlet GitHub Action (action.yml), one
# subcommand per step, so the action is a thin shell around code that
# `make test` runs (suite/test_action.c plays action.yml's steps with
# scripts/run-action.py). Inputs come from the environment:
#   GAUNTLET_HOME        the gauntlet checkout (the action's own folder)
#   GAUNTLET_BUILD_DIR   its build folder, relative to GAUNTLET_HOME or absolute (default build)
#   INPUT_TARGET         --target SPEC (default: reference)
#   INPUT_PATHS          corpus paths, space-separated (default: the bundled corpus)
#   INPUT_GATE, INPUT_TAG, INPUT_ID, INPUT_SHARD, INPUT_JOBS   selection and fan-out
#   INPUT_BASELINE       an earlier JSON report: gate on regressions only (a missing file
#                        is announced and the run gates on every failure)
#   INPUT_ARGS           more `gauntlet run` arguments, split on spaces
#   INPUT_REPORT_DIR     where the reports go (default gauntlet-reports)
#   GITHUB_STEP_SUMMARY, GITHUB_OUTPUT   files the runner reads after the step
# Subcommands:
#   build     install missing Debian packages (scripts/deps) and build gauntlet
#   run       run it, writing json, junit, html, md and badge reports into INPUT_REPORT_DIR;
#             records the exit code and exits 0, so the upload and summary steps still run
#   summary   append the Markdown report to the job summary
#   gate      exit with the run's code: 0 green, 1 a failure (with a baseline: a regression),
#             2 an error (usage, load problems, a target that failed its smoke test)
set -u
home=${GAUNTLET_HOME:-$(cd "$(dirname "$0")/.." && pwd)}
build=${GAUNTLET_BUILD_DIR:-build}
case "$build" in /*) gauntlet=$build/gauntlet ;; *) gauntlet=$home/$build/gauntlet ;; esac
dir=${INPUT_REPORT_DIR:-gauntlet-reports}
summary=${GITHUB_STEP_SUMMARY:-/dev/null}
output=${GITHUB_OUTPUT:-/dev/null}

step_build() {
    sh "$home/scripts/deps" || exit 2
    # a make of its own, not a parent make's jobserver
    env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$home" -j"$(nproc)" BUILD="$build" "$build/gauntlet" || exit 2
    "$gauntlet" --version
}

step_run() {
    mkdir -p "$dir" || exit 2
    set -- run
    for p in ${INPUT_PATHS:-}; do set -- "$@" "$p"; done
    [ -n "${INPUT_TARGET:-}" ] && set -- "$@" --target "$INPUT_TARGET"
    [ -n "${INPUT_GATE:-}" ] && set -- "$@" --gate "$INPUT_GATE"
    [ -n "${INPUT_TAG:-}" ] && set -- "$@" --tag "$INPUT_TAG"
    [ -n "${INPUT_ID:-}" ] && set -- "$@" --id "$INPUT_ID"
    [ -n "${INPUT_SHARD:-}" ] && set -- "$@" --shard "$INPUT_SHARD"
    [ -n "${INPUT_JOBS:-}" ] && set -- "$@" -j "$INPUT_JOBS"
    if [ -n "${INPUT_BASELINE:-}" ]; then
        if [ -f "$INPUT_BASELINE" ]; then
            set -- "$@" --baseline "$INPUT_BASELINE"
        else
            echo "gauntlet action: no baseline at '$INPUT_BASELINE': every failure gates this run"
        fi
    fi
    # shellcheck disable=SC2086 # INPUT_ARGS is a list of words
    set -- "$@" ${INPUT_ARGS:-} \
        --report "json:$dir/gauntlet.json,junit:$dir/gauntlet.xml,html:$dir/gauntlet.html,md:$dir/gauntlet.md,badge:$dir/badge.json"
    echo "gauntlet action: gauntlet $*"
    { "$gauntlet" "$@" 2>&1; echo $? >"$dir/exit-code"; } | tee "$dir/console.txt"
    code=$(cat "$dir/exit-code")
    totals=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$dir/console.txt" | tail -n 1)
    {
        echo "exit-code=$code"
        echo "report-dir=$dir"
        echo "totals=$totals"
    } >>"$output"
    echo "gauntlet action: exit $code ($totals)"
}

step_summary() {
    if [ -s "$dir/gauntlet.md" ]; then
        cat "$dir/gauntlet.md" >>"$summary"
    else
        printf '## gauntlet: no report\n\nThe run wrote no Markdown report (exit %s); see the job log.\n' \
            "$(cat "$dir/exit-code" 2>/dev/null || echo '?')" >>"$summary"
    fi
}

step_gate() {
    code=$(cat "$dir/exit-code" 2>/dev/null || echo 2)
    case "$code" in
        0) echo "gauntlet action: green" ;;
        1) echo "gauntlet action: failed (with a baseline: a regression); reports in $dir" ;;
        *) echo "gauntlet action: error (exit $code): usage, load problems or a target that cannot run" ;;
    esac
    exit "$code"
}

case "${1:-}" in
    build) step_build ;;
    run) step_run ;;
    summary) step_summary ;;
    gate) step_gate ;;
    *) echo "usage: ci-action.sh build|run|summary|gate" >&2; exit 2 ;;
esac
