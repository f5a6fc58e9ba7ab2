#!/usr/bin/env bash
# The main job in one command: builds the package, installs the pinned n8n (once, cached in
# e2e/.n8n), installs the package into a fresh n8n user folder (.demo/) the way Community Nodes
# does, imports the examples, runs the tool-loop example end to end and prints each round trip,
# then serves the editor on http://127.0.0.1:5678 until Ctrl-C.
#
# The model: set OPENAI_API_KEY (and OPENAI_BASE_URL, OPENAI_MODEL; OPENAI_API=responses for the
# Responses API), or ANTHROPIC_API_KEY (ANTHROPIC_MODEL), or GEMINI_API_KEY (GEMINI_MODEL), or
# OLLAMA_HOST / OLLAMA_MODEL to run live. With none, the recorded example trace replays the model,
# offline. The MCP server (server-everything from npm) always runs for real.
#   DEMO_SERVE=0  stop after the run instead of serving the editor
set -euo pipefail
source "$(dirname "$0")/node24.sh"
cd "$project_root"

if [ ! -d node_modules/@modelcontextprotocol/server-everything ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
	bash scripts/setup.sh
else
	echo "==> build"
	npm run build >/dev/null
fi
source scripts/n8n.sh

DEMO_DIR="$project_root/.demo"
rm -rf "$DEMO_DIR"
mkdir -p "$DEMO_DIR"
echo "==> n8n $(n8n_pinned_version)"
n8n_install "$DEMO_DIR/n8n-install.log" || { tail -n 40 "$DEMO_DIR/n8n-install.log"; exit 1; }
echo "==> the package, installed as a community package into .demo/user"
tarball="$(package_pack "$DEMO_DIR")"
package_install "$tarball" "$DEMO_DIR/user" "" "$DEMO_DIR/package-install.log" || { tail -n 40 "$DEMO_DIR/package-install.log"; exit 1; }
n8n_settings "$DEMO_DIR/user" "demo-$(node -p 'require("crypto").randomBytes(12).toString("hex")')"
# `n8n execute --rawOutput` prints the run only at info level or above.
export N8N_LOG_LEVEL=info
# A port the editor can take: 5678 unless it is busy or N8N_PORT says otherwise.
if [ -z "${N8N_PORT:-}" ]; then
	N8N_PORT=5678
	(echo >/dev/tcp/127.0.0.1/5678) 2>/dev/null && N8N_PORT="$(free_port)"
	export N8N_PORT
fi

serve_flag=()
[ "${DEMO_SERVE:-1}" = 0 ] && serve_flag=(--no-serve)
node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON scripts/demo.ts --n8n "$N8N_BIN" --folder "$DEMO_DIR" "${serve_flag[@]}"
