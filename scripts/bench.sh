#!/usr/bin/env bash
# Benchmarks of the hot paths (pooled MCP calls, concurrency, schema checks) on the built library,
# then the nodes in n8n-core's engine beside their floors (bench/inEngine.ts, compiled into .bench/).
set -euo pipefail
source "$(dirname "$0")/node24.sh"
cd "$project_root"
npm run bench
