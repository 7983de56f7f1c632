# ajv.sh — sourced by the node-based benchmarks: NODE_DIR, ensure_peers /
# ensure_ajv, which install the pinned peers of bench/package.json (exact
# versions, bench/package-lock.json) with `npm ci` into bench/node/
# (git-ignored) once, and again when the lock file changes. They print a
# "skipped" line and return 1 when node, npm or the install is missing.
BENCH_DIR="$(cd "$(dirname "$0")/.." && pwd)"
NODE_DIR="$BENCH_DIR/node"
ensure_peers() { # $1: the benchmark's name for the skip line
    if ! command -v node >/dev/null 2>&1; then
        echo "$1: skipped: node is not installed (needed for the npm peers)"; return 1
    fi
    if ! cmp -s "$BENCH_DIR/package-lock.json" "$NODE_DIR/package-lock.json" 2>/dev/null ||
       [ ! -d "$NODE_DIR/node_modules" ]; then
        command -v npm >/dev/null 2>&1 || { echo "$1: skipped: npm is not installed (apt-get install npm)"; return 1; }
        echo "$1: installing the pinned peers (bench/package-lock.json) into bench/node/"
        rm -rf "$NODE_DIR" && mkdir -p "$NODE_DIR" &&
            cp "$BENCH_DIR/package.json" "$BENCH_DIR/package-lock.json" "$NODE_DIR/" &&
            (cd "$NODE_DIR" && npm ci --silent --no-audit --no-fund >/dev/null 2>&1) || {
            rm -f "$NODE_DIR/package-lock.json"; echo "$1: skipped: npm ci of bench/package-lock.json failed"; return 1; }
    fi
}
ensure_ajv() {
    ensure_peers "$1" || return 1
    [ -d "$NODE_DIR/node_modules/ajv" ] || { echo "$1: skipped: ajv is not in bench/node/"; return 1; }
}
# ajv's installed version ("8.20.0"); call after ensure_ajv succeeded.
ajv_version() { node -e "console.log(require('$NODE_DIR/node_modules/ajv/package.json').version)"; }
