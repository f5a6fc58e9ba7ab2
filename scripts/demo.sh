#!/usr/bin/env bash
# The main job in one command: builds the package, installs the pinned n8n (once, cached in
# e2e/.n8n), installs the package into a fresh n8n user folder (.demo/) the way Community Nodes
# does, imports the examples, runs the tool-loop example end to end and prints each round trip,
# then serves the editor on http://127.0.0.1:5678 until Ctrl-C (scripts/demo.ts).
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

serve_flag=()
[ "${DEMO_SERVE:-1}" = 0 ] && serve_flag=(--no-serve)
exec node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON scripts/demo.ts "${serve_flag[@]}"
