# ajv.sh — sourced by the node-based benchmarks: NODE_DIR and ensure_ajv,
# which installs ajv@^8 into bench/node/ (git-ignored) once. ensure_ajv
# prints a "skipped" line and returns 1 when node or the install is missing.
NODE_DIR="$(cd "$(dirname "$0")/.." && pwd)/node"
ensure_ajv() { # $1: the benchmark's name for the skip line
    if ! command -v node >/dev/null 2>&1; then
        echo "$1: skipped: node is not installed (needed for the ajv peer)"; return 1
    fi
    if [ ! -d "$NODE_DIR/node_modules/ajv" ]; then
        echo "$1: installing ajv into bench/node/"
        npm install --silent --no-audit --no-fund --prefix "$NODE_DIR" ajv@^8 >/dev/null 2>&1 || {
            echo "$1: skipped: npm install ajv failed"; return 1; }
    fi
}
# ajv's installed version ("8.17.1"); call after ensure_ajv succeeded.
ajv_version() { node -e "console.log(require('$NODE_DIR/node_modules/ajv/package.json').version)"; }
