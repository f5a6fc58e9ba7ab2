#!/usr/bin/env bash
# Set-up (idempotent), lint, the whole test suite, then the end-to-end test in a real n8n.
set -euo pipefail
bash "$(dirname "$0")/setup.sh"
source "$(dirname "$0")/node24.sh"
cd "$project_root"

# The end-to-end test drives n8n's editor in Chromium (playwright-core, a devDependency, downloads
# no browser): Debian's package, installed here when missing. E2E_CHROMIUM names another one;
# E2E_SKIP_BROWSER=1 leaves the browser part out.
have_chromium() { command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; }
if [ "${E2E_SKIP_BROWSER:-}" != 1 ] && [ -z "${E2E_CHROMIUM:-}" ] && ! have_chromium; then
	echo "Installing Chromium (apt-get install chromium) for the browser part of the end-to-end test"
	as_root=""
	[ "$(id -u)" -eq 0 ] || as_root="sudo -n"
	if command -v apt-get >/dev/null 2>&1; then
		export DEBIAN_FRONTEND=noninteractive
		$as_root apt-get install -y chromium || { $as_root apt-get update && $as_root apt-get install -y chromium; } || true
	fi
	if ! have_chromium; then
		echo "Chromium could not be installed (it needs apt-get and root, or password-less sudo)." >&2
		echo "Install it yourself (Debian: apt-get install chromium), set E2E_CHROMIUM to a Chromium or Chrome" >&2
		echo "binary, or run with E2E_SKIP_BROWSER=1 to leave the browser part of the end-to-end test out." >&2
		exit 1
	fi
fi

npm run lint
npm test
# The package already built by set-up is what n8n gets.
E2E_SKIP_BUILD=1 bash scripts/e2e.sh
# The README's main command as a user without a model configured runs it (the recorded model
# replays; the MCP server runs for real), stopping after the run instead of serving the editor.
# A model key in the caller's environment must not turn this into a live, paid run.
demo_log="$(mktemp)"
env -u OPENAI_API_KEY -u OPENAI_BASE_URL -u ANTHROPIC_API_KEY -u GEMINI_API_KEY -u OLLAMA_HOST -u OLLAMA_MODEL \
	DEMO_SERVE=0 bash scripts/demo.sh | tee "$demo_log"
if ! grep -q '^==> answer after 3 rounds: 17 + 25 = 42' "$demo_log"; then
	echo "FAIL  the demo reaches the example's answer" >&2
	exit 1
fi
echo "PASS  the demo reaches the example's answer"
