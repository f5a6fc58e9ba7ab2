#!/usr/bin/env bash
# Set-up (idempotent), lint, the whole test suite, then the end-to-end test in a real n8n.
set -euo pipefail
bash "$(dirname "$0")/setup.sh"
source "$(dirname "$0")/node24.sh"
cd "$project_root"

# What the end-to-end test needs from Debian, installed here when missing (as root or with
# password-less sudo): Chromium for the editor in a browser (playwright-core, a devDependency,
# downloads no browser; E2E_CHROMIUM names another one, E2E_SKIP_BROWSER=1 leaves the browser out),
# Redis and PostgreSQL for queue mode (E2E_SKIP_QUEUE=1 leaves queue mode out). Nothing is asked of
# apt when they are there.
have_chromium() { command -v chromium >/dev/null 2>&1 || command -v chromium-browser >/dev/null 2>&1; }
have() {
	case "$1" in
	chromium) have_chromium ;;
	redis-server) command -v redis-server >/dev/null 2>&1 ;;
	postgresql) compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null ;;
	esac
}
wanted=()
if [ "${E2E_SKIP_BROWSER:-}" != 1 ] && [ -z "${E2E_CHROMIUM:-}" ]; then
	have chromium || wanted+=(chromium)
fi
if [ "${E2E_SKIP_QUEUE:-}" != 1 ]; then
	have redis-server || wanted+=(redis-server)
	have postgresql || wanted+=(postgresql)
fi
if [ "${#wanted[@]}" -gt 0 ]; then
	echo "Installing ${wanted[*]} (apt-get install) for the end-to-end test"
	as_root=""
	[ "$(id -u)" -eq 0 ] || as_root="sudo -n"
	if command -v apt-get >/dev/null 2>&1; then
		export DEBIAN_FRONTEND=noninteractive
		$as_root apt-get install -y "${wanted[@]}" || { $as_root apt-get update && $as_root apt-get install -y "${wanted[@]}"; } || true
	fi
	missing=0
	for package in "${wanted[@]}"; do
		have "$package" && continue
		missing=1
		echo "$package could not be installed (it needs apt-get and root, or password-less sudo)." >&2
		if [ "$package" = chromium ]; then
			echo "Install it yourself (Debian: apt-get install chromium), set E2E_CHROMIUM to a Chromium or Chrome" >&2
			echo "binary, or run with E2E_SKIP_BROWSER=1 to leave the browser part of the end-to-end test out." >&2
		else
			echo "Install it yourself (Debian: apt-get install redis-server postgresql), or run with" >&2
			echo "E2E_SKIP_QUEUE=1 to leave the queue-mode part of the end-to-end test out." >&2
		fi
	done
	[ "$missing" -eq 0 ] || exit 1
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
