# test-data.sh — sourced by scripts/run-tests.sh and scripts/jsts-floor.sh:
# where the third-party test data is. Each data set is looked for, in order,
# through its environment variable, the git submodule under third_party/ (when
# checked out: `git clone --recursive` or `git submodule update --init`) and
# the shared folder beside the repository; suite/gt_test.h does the same for
# the Check suites. Nothing is ever copied into the repository.
GT_TEST_FETCH_HINT='fetch it with `git submodule update --init`'

# gt_data_find VALUE SUBMODULE SHARED PROBE: print the first of VALUE (an
# environment variable's value, may be empty), SUBMODULE and SHARED under which
# PROBE ("" for the path itself) exists; a VALUE that is set is the only
# candidate (an explicit choice is never replaced). Exit 1 when none is found.
gt_data_find() {
    _value=$1; _sub=$2; _shared=$3; _probe=$4
    if [ -n "$_value" ]; then
        set -- "$_value"
    else
        set -- "$_sub" "$_shared"
    fi
    for _candidate in "$@"; do
        if [ -e "$_candidate${_probe:+/$_probe}" ]; then
            echo "$_candidate"; return 0
        fi
    done
    return 1
}
