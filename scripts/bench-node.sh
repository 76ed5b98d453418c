#!/usr/bin/env bash
# Runs `npm run bench` under Node 22 or 24: 24 is what `serve` users run, 22
# the line inside Electron 45, which runs the desktop app (the machine's Node
# may be another; package.json "engines" names both). The bench itself,
# `serve`, the limit references and the load generator all run on it, with
# better-sqlite3 built for it.
#
#   bash scripts/bench-node.sh 22|24 [bench arguments]   (npm run bench:node22 -- …, npm run bench:node24 -- …)
#
# The Node line and its better-sqlite3 build: scripts/node-runtime.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

# shellcheck source=node-runtime.sh
. scripts/node-runtime.sh "${1:-}"
shift || true
# PATH first: whatever the bench spawns as plain `node` is this Node too.
# --single-threaded-gc: the load generators run in this process, and its garbage collection stays on its own thread
# (V8's parallel GC threads took the measured server's core; docs/benchmarks.md, "The load generator's garbage collector").
PATH="$cache/node/bin:$PATH" "$node_bin" --single-threaded-gc --import tsx bench/run.ts "$@"
