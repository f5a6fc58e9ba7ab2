#!/usr/bin/env bash
# Set-up (idempotent), lint, then the whole test suite.
set -euo pipefail
bash "$(dirname "$0")/setup.sh"
source "$(dirname "$0")/node24.sh"
cd "$project_root"
npm run lint
npm test
