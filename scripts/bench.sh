#!/usr/bin/env bash
# Benchmarks of the hot paths (pooled MCP calls, concurrency, schema checks) on the built library.
set -euo pipefail
source "$(dirname "$0")/node24.sh"
cd "$project_root"
npm run bench
