#!/usr/bin/env bash
# Everything a fresh machine needs: Node 24, dependencies (with the MCP servers the tests use), a build.
set -euo pipefail
source "$(dirname "$0")/node24.sh"
cd "$project_root"
echo "node $(node -v), npm $(npm -v)"
npm ci --no-audit --no-fund
npm run build
