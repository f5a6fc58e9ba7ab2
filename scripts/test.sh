#!/usr/bin/env bash
# Set-up (idempotent), lint, the whole test suite, then the end-to-end test in a real n8n.
set -euo pipefail
bash "$(dirname "$0")/setup.sh"
source "$(dirname "$0")/node24.sh"
cd "$project_root"
npm run lint
npm test
# The package already built by set-up is what n8n gets.
E2E_SKIP_BUILD=1 bash scripts/e2e.sh
