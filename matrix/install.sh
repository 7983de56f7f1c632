#!/bin/sh
# make matrix-deps: install the pinned libraries (matrix/package.json, exact
# versions; matrix/package-lock.json) with `npm ci` into matrix/node_modules
# (git-ignored). Does nothing when the installed tree matches the lock file.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
if cmp -s "$HERE/package-lock.json" "$HERE/node_modules/.package-lock.json.gauntlet" 2>/dev/null; then
    exit 0
fi
command -v npm >/dev/null 2>&1 || { echo "matrix: npm is not installed (apt-get install npm)" >&2; exit 1; }
echo "matrix: npm ci (matrix/package-lock.json) into $HERE/node_modules"
(cd "$HERE" && npm ci --no-audit --no-fund --loglevel=error) || exit 1
cp "$HERE/package-lock.json" "$HERE/node_modules/.package-lock.json.gauntlet"
