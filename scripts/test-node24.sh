#!/usr/bin/env bash
# Runs the service-side suites under Node 24, next to the machine's Node:
# vitest's `service` project, which is `node` minus the browser and packaging
# tests (BROWSER_AND_PACKAGING in vitest.config.ts: they build or drive the
# Electron and Chromium bundles, not the service on this Node), and the
# `postgres` project.
#
#   bash scripts/test-node24.sh [more vitest arguments]   (npm run test:node24)
#
# Node 24 and its better-sqlite3 build: scripts/node24-runtime.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

who=test-node24
# shellcheck source=node24-runtime.sh
. scripts/node24-runtime.sh

echo "test-node24: vitest under Node $version (better-sqlite3 $bs3_version, ABI $abi)"
# PATH first: whatever a test spawns as plain `node` is Node 24 too.
# The PostgreSQL suites too (the project starts its own server): the pg driver, the pool and the
# cluster code on this Node. (A --exclude given here would not reach the projects: they say what runs.)
PATH="$cache/node/bin:$PATH" "$node24" node_modules/vitest/vitest.mjs run --project service --project postgres "$@"
