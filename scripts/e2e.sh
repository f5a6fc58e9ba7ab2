#!/usr/bin/env bash
# The end-to-end test in a REAL n8n: brings Node 24, then runs e2e/main.ts (what it runs, and the
# E2E_* settings it takes, are written at its top).
set -euo pipefail
source "$(dirname "$0")/node24.sh"
cd "$project_root"
exec node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON e2e/main.ts
