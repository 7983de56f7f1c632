#!/bin/sh
# test-install.sh — install gauntlet as a user would and use only the
# installed tree: `make install DESTDIR=<tmp> PREFIX=/opt/gauntlet-test`,
# then (1) every file is there (binary, static and shared library with its
# soname, headers, gauntlet.pc, the corpus, a man page per command, bash and
# zsh completion), (2) the installed binary, run from outside the checkout,
# finds the installed corpus and passes it, (3) a program built with the
# README's two commands works: against the shared library (`pkg-config
# gauntlet`) and against the static one (`pkg-config --static
# gauntlet-static`, run without LD_LIBRARY_PATH), (4) every function an installed header
# declares is defined in both libraries. Prints one "install: ok|FAIL: ..."
# line per check and ends with "N passed, N failed"; exit 1 on any failure.
# Environment: BUILD (build folder, default build), CC, SAN=1 (the libraries
# were built with ASan/UBSan: link the test program with them too), COV=1
# (built for coverage: link with --coverage).
set -u
BUILD=${BUILD:-build}
CC=${CC:-cc}
PREFIX_UNDER_TEST=/opt/gauntlet-test
passed=0; failed=0
ok() { echo "install: ok: $*"; passed=$((passed + 1)); }
fail() { echo "install: FAIL: $*"; failed=$((failed + 1)); }
finish() { echo "$passed passed, $failed failed"; [ "$failed" -eq 0 ]; exit $?; }

checkout=$(pwd)
tmp=$(mktemp -d /tmp/gt-install-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
stage=$tmp/stage
root=$stage$PREFIX_UNDER_TEST
SANFLAGS=""
[ "${SAN:-0}" = 1 ] && SANFLAGS="-fsanitize=address,undefined"
# COV=1 (make coverage): the libraries hold gcov counters; a static link needs libgcov too.
[ "${COV:-0}" = 1 ] && SANFLAGS="$SANFLAGS --coverage"

# Not the outer make's jobserver: this is a make of its own.
if env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory install BUILD="$BUILD" \
    DESTDIR="$stage" PREFIX="$PREFIX_UNDER_TEST" >"$tmp/make.log" 2>&1; then
    ok "make install DESTDIR=... PREFIX=$PREFIX_UNDER_TEST"
else
    cat "$tmp/make.log"; fail "make install"; finish
fi

# (1) the files
missing=""
for f in bin/gauntlet lib/libgauntlet.a lib/libgauntlet.so lib/pkgconfig/gauntlet.pc lib/pkgconfig/gauntlet-static.pc include/gauntlet/parse.h \
    include/gauntlet/runner/run.h include/gauntlet/runner/report.h share/gauntlet/corpus/VERSION share/gauntlet/corpus/rules.json \
    share/man/man1/gauntlet.1 share/bash-completion/completions/gauntlet share/zsh/site-functions/_gauntlet; do
    [ -e "$root/$f" ] || missing="$missing $f"
done
[ -z "$missing" ] && ok "installed files" || fail "missing:$missing"
for c in $("$root/bin/gauntlet" help --commands); do
    [ -s "$root/share/man/man1/gauntlet-$c.1" ] || missing="$missing gauntlet-$c.1"
done
[ -z "$missing" ] && ok "a man page per command" || fail "man pages missing:$missing"
soname=$(readelf -d "$root/lib/libgauntlet.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
if [ -n "$soname" ] && [ -e "$root/lib/$soname" ] && [ "$soname" != libgauntlet.so ]; then
    ok "shared library with soname $soname"
else
    fail "libgauntlet.so soname '$soname'"
fi
cases_in_checkout=$("$checkout/$BUILD/gauntlet" run --list "$checkout/corpus" | wc -l)
cases_installed=$(cd "$tmp" && "$root/bin/gauntlet" run --list | wc -l)
[ "$cases_installed" -gt 0 ] && [ "$cases_installed" -eq "$cases_in_checkout" ] &&
    ok "installed corpus: $cases_installed cases" || fail "installed corpus: $cases_installed cases, checkout $cases_in_checkout"

# (2) the installed binary, outside the checkout, on its own corpus
line=$(cd "$tmp" && "$root/bin/gauntlet" run -q 2>&1 | tail -n 1)
[ "$line" = "$cases_installed passed, 0 failed, 0 skipped" ] &&
    ok "gauntlet run outside the checkout: $line" || fail "gauntlet run outside the checkout: '$line'"

# (3) a program built with nothing but pkg-config
export PKG_CONFIG_PATH="$root/lib/pkgconfig" PKG_CONFIG_SYSROOT_DIR="$stage"
cat >"$tmp/prog.c" <<'EOF'
#include <stdio.h>
#include <gauntlet/runner/corpus.h>
#include <gauntlet/runner/report.h>
#include <gauntlet/runner/run.h>
#include <gauntlet/version.h>

/* Load a corpus, run it against the in-process reference, print the totals
 * and write the JSON report: the public API end to end. */
int main(int argc, char **argv)
{
    if (argc != 3)
        return 2;
    gt_corpus *corpus = gt_corpus_new();
    if (gt_corpus_load(corpus, argv[1]) <= 0)
        return 2;
    gt_corpus_filter(corpus, argv[2], NULL, NULL);
    char err[256];
    gt_run *run = gt_run_cases(corpus, "reference", 1, NULL, NULL, err, sizeof err);
    if (run == NULL)
        return 2;
    gt_run_counts counts[GT_GATE_COUNT + 1];
    gt_run_count(run, counts);
    FILE *null = fopen("/dev/null", "w");
    int written = gt_report_json(null, run, NULL);
    fclose(null);
    printf("gauntlet %s: %zu passed, %zu failed\n", GAUNTLET_VERSION, counts[GT_GATE_COUNT].pass,
           counts[GT_GATE_COUNT].fail + counts[GT_GATE_COUNT].error);
    gt_run_free(run);
    gt_corpus_free(corpus);
    return written == 0 && counts[GT_GATE_COUNT].pass > 0 ? 0 : 1;
}
EOF
if ! pkg-config --exists gauntlet; then
    fail "pkg-config finds gauntlet.pc"; finish
fi
cflags=$(pkg-config --cflags gauntlet)
case "$cflags" in *"$root/include"*) ok "pkg-config --cflags points into the installed tree" ;;
    *) fail "pkg-config --cflags gauntlet: '$cflags'" ;; esac
# The two build commands are taken from README.md as they are written there
# (only `cc` becomes $CC $SANFLAGS, for sanitizer and coverage builds), and
# run in a folder holding app.c.
readme_command() { # the README line's text that the pattern finds, up to its comment
    grep -E "^cc -o app app.c .*$1" "$checkout/README.md" | head -n 1 | sed -E 's/[[:space:]]*#.*$//'
}
build_like_readme() { # label pattern: build $tmp/app with the README's command
    _command=$(readme_command "$2")
    if [ -z "$_command" ]; then
        fail "$1: README.md has no 'cc -o app app.c ...$2' command"; return 1
    fi
    cp "$tmp/prog.c" "$tmp/app.c"
    rm -f "$tmp/app"
    if (cd "$tmp" && eval "$CC $SANFLAGS ${_command#cc }") 2>"$tmp/cc.log"; then
        ok "$1 builds with the README's command: $_command"
    else
        cat "$tmp/cc.log"; fail "$1: $_command"; return 1
    fi
}
try_program() { # label binary [LD_LIBRARY_PATH]
    out=$(env ${3:+LD_LIBRARY_PATH="$3"} "$2" "$root/share/gauntlet/corpus" syntax 2>&1)
    case "$out" in "gauntlet "*": "*" passed, 0 failed") ok "$1: $out" ;; *) fail "$1 ran: '$out'" ;; esac
}
if build_like_readme "shared" "--libs gauntlet\\)"; then
    mv "$tmp/app" "$tmp/prog-shared"
    if readelf -d "$tmp/prog-shared" | grep -q "NEEDED.*\[$soname\]"; then
        try_program "linked against $soname (LD_LIBRARY_PATH=PREFIX/lib, as the README says)" "$tmp/prog-shared" "$root/lib"
    else
        fail "the shared link does not need $soname"
    fi
fi
if pkg-config --exists gauntlet-static && build_like_readme "static" "--static --cflags --libs gauntlet-static"; then
    mv "$tmp/app" "$tmp/prog-static"
    if readelf -d "$tmp/prog-static" | grep -q "libgauntlet"; then
        fail "the static link still needs libgauntlet.so"
    else
        try_program "linked against libgauntlet.a, run without LD_LIBRARY_PATH" "$tmp/prog-static"
    fi
else
    fail "pkg-config finds gauntlet-static.pc and the static build works"
fi

# (4) every function an installed header declares is defined in both libraries
# (both layers: the library's API in gauntlet/, the runner's in gauntlet/runner/)
(cd "$root/include" && for h in gauntlet/*.h gauntlet/runner/*.h; do echo "#include <$h>"; done) >"$tmp/all.c"
if $CC $cflags -aux-info "$tmp/aux.txt" -c "$tmp/all.c" -o "$tmp/all.o" 2>"$tmp/cc.log"; then
    grep "/include/gauntlet/" "$tmp/aux.txt" | grep -v "static" |
        sed -n 's/.*[ *]\([A-Za-z_][A-Za-z0-9_]*\) (.*/\1/p' | sort -u >"$tmp/declared.txt"
    nm -D --defined-only "$root/lib/libgauntlet.so" | awk '$2 ~ /[TW]/ {print $3}' | sort -u >"$tmp/shared.txt"
    nm --defined-only "$root/lib/libgauntlet.a" 2>/dev/null | awk '$2 ~ /[TW]/ {print $3}' | sort -u >"$tmp/static.txt"
    declared=$(wc -l <"$tmp/declared.txt")
    not_shared=$(comm -23 "$tmp/declared.txt" "$tmp/shared.txt" | tr '\n' ' ')
    not_static=$(comm -23 "$tmp/declared.txt" "$tmp/static.txt" | tr '\n' ' ')
    if [ "$declared" -lt 100 ]; then
        fail "only $declared declared functions found in the installed headers"
    elif [ -z "$not_shared" ] && [ -z "$not_static" ]; then
        ok "all $declared functions declared in the installed headers are in libgauntlet.so and libgauntlet.a"
    else
        fail "declared but not defined: shared: ${not_shared:-none}; static: ${not_static:-none}"
    fi
else
    cat "$tmp/cc.log"; fail "the installed headers compile together"
fi
finish
