# median.sh — sourced by the benchmark scripts: median of a list of numbers.
# `median 3 1 2` prints 2; an even count prints the mean of the middle two.
median() {
    printf '%s\n' "$@" | sort -g | awk '{ v[NR] = $1 } END {
        if (NR == 0) exit 1
        if (NR % 2) printf "%.6f\n", v[(NR + 1) / 2]; else printf "%.6f\n", (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}
