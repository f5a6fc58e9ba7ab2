#!/usr/bin/env bash
# Everything a fresh machine needs: Node 24, dependencies (with the MCP servers the tests use), a build.
set -euo pipefail
source "$(dirname "$0")/node24.sh"
cd "$project_root"
echo "node $(node -v), npm $(npm -v)"
# Install scripts stay off: nothing here needs one (native modules ship prebuilt), and n8n-nodes-base
# (real n8n nodes for the engine tests) pulls a Kafka client whose native build cannot succeed here.
npm ci --no-audit --no-fund --ignore-scripts
npm run build
