#!/usr/bin/env bash
# End-to-end test in a REAL n8n: installs the pinned n8n of e2e/n8n/ (once; cached by the lock's
# hash), packs this package and installs the tarball into a fresh N8N_USER_FOLDER the way
# Settings → Community Nodes installs a package, then runs the example workflows in n8n against
# the real MCP "everything" server and local stand-ins for the model APIs:
#   1. examples/mcp-tool-loop.json headless, with `n8n execute`: through Chat Completions, then
#      through Anthropic's Messages API, streamed;
#   2. examples/webhook-agent.json published in `n8n start`, called over HTTP; then what the
#      editor asks of the package there (types, icons, credential tests, tool lists and forms);
#   3. examples/scheduled-inbox-summary.json published in the same `n8n start` (its imported copy
#      runs every 10 seconds, on the real MCP filesystem server): a run is seen to succeed;
#   4. the editor in a real browser (Chromium driven by playwright-core, e2e/browser.ts): sign in,
#      run the loop example with the Execute workflow button, check the nodes' icons, subtitles,
#      output items and the tool and model lists their panels load. Screenshots: e2e/artifacts/.
#   5. a remote MCP server behind OAuth 2.1 in the same `n8n start` (e2e/phases/oauth.ts): n8n's
#      Connect flow signs in, published workflows list and call its tools, renew expired tokens
#      through n8n, read its resources and prompts, and a refused renewal is named without a token.
# Prints PASS/FAIL per check and the time of each phase; exits non-zero on any failure.
#
# Settings (environment):
#   E2E_SKIP_BUILD=1       pack dist/ as it is instead of running `npm run build` first
#   E2E_SKIP_WEBHOOK=1     leave out the `n8n start` part (webhook, schedule, browser)
#   E2E_SKIP_BROWSER=1     leave out the browser (4.)
#   E2E_CHROMIUM=PATH      the Chromium to drive (default: chromium on PATH)
#   E2E_UPDATE_DOCS=1      copy the screenshots the README shows to docs/ after a passing browser phase
#   E2E_INSTALL_MODE=npm   install with a plain `npm install <tarball>` in .n8n/nodes (n8n 1.x's way)
#                          instead of the steps n8n 2.40's community-package service takes
#   E2E_KEEP=1             keep the run folder (n8n user folder, logs) after the run
#   E2E_TIMEOUT_SCALE=N    multiply every time limit by N (slow machines)
set -euo pipefail
source "$(dirname "$0")/node24.sh"
cd "$project_root"
source scripts/n8n.sh

NODE24="$(command -v node)"
SCALE="${E2E_TIMEOUT_SCALE:-1}"
API_KEY="sk-e2e-$(node -p 'require("crypto").randomBytes(12).toString("hex")')"
# Every process this script starts carries this variable (the MCP servers get it through their
# credential), so the end of the run can find any that outlived it. Not exported: the script's
# own shells must not match.
E2E_RUN_ID="n8n-e2e-$$-$RANDOM"
export NO_PROXY="127.0.0.1,localhost${NO_PROXY:+,$NO_PROXY}" no_proxy="127.0.0.1,localhost${no_proxy:+,$no_proxy}"

RUN_DIR="$(mktemp -d "${TMPDIR:-/tmp}/n8n-e2e.XXXXXX")"
LOGS="$RUN_DIR/logs"
mkdir -p "$LOGS"

# ---------------------------------------------------------------- results, timings, clean-up
RESULTS=()
TIMINGS=()
FAILED=0
GROUPS_STARTED=()    # process groups this script started (each background command runs in its own)
N8N_LOGS=()          # n8n's logs, shown on failure

pass() { RESULTS+=("PASS  $1"); echo "PASS  $1"; }
fail() {
	local why="${2:-}"
	why="${why//$'\n'/; }"
	RESULTS+=("FAIL  $1${why:+ — $why}")
	echo "FAIL  $1${why:+ — $why}" >&2
	FAILED=$((FAILED + 1))
}
note() { echo "==> $*"; }
# Reads `PASS<TAB>name` / `FAIL<TAB>name<TAB>why` lines (e2e/check.ts) into the results.
record_checks() {
	local verdict name why
	while IFS=$'\t' read -r verdict name why; do
		case "$verdict" in
		PASS) pass "$name" ;;
		FAIL) fail "$name" "$why" ;;
		*) [ -n "$verdict" ] && echo "    $verdict $name $why" ;;
		esac
	done
}

# Runs a checker (node $1 with the rest: e2e/check.ts, or e2e/run-phase.ts for a phase written in
# TypeScript) and records its verdicts (a checker that dies says so too).
run_checker() {
	local script="$1" out="$RUN_DIR/check-$2.txt" status=0
	shift
	node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON "$script" "$@" >"$out" 2>&1 || status=$?
	local before=$FAILED
	record_checks <"$out"
	if [ "$status" -ne 0 ] && [ "$FAILED" -eq "$before" ]; then
		fail "$script $1 ran" "exit status $status: $(tail -n 5 "$out" | tr '\n' ' ')"
	fi
	return 0
}
run_checks() { run_checker e2e/check.ts "$@"; }

PHASE_NAME=""  # the phase being timed
PHASE_START=0
phase() {
	phase_end
	PHASE_NAME="$1"
	PHASE_START=$(date +%s%N)
	note "$1"
}
phase_end() {
	if [ -n "$PHASE_NAME" ]; then
		local ms=$((($(date +%s%N) - PHASE_START) / 1000000))
		TIMINGS+=("$(printf '%-34s %4d.%01d s' "$PHASE_NAME" $((ms / 1000)) $((ms % 1000 / 100)))")
		PHASE_NAME=""
	fi
}

# Whether process group $1 still has a member that is not a zombie (an orphan's exit status
# waits for init to collect it, which takes a moment in some containers).
group_alive() {
	ps -e -o pgid=,stat= | awk -v group="$1" '$1 == group && $2 !~ /^Z/ { found = 1 } END { exit !found }'
}

# Stops a process group: SIGTERM, up to $2 seconds (default 15) to exit, then SIGKILL (status 1).
stop_group() {
	local pgid="$1" grace="${2:-15}" waited=0
	group_alive "$pgid" || return 0
	kill -TERM -- "-$pgid" 2>/dev/null || true
	while group_alive "$pgid" && [ "$waited" -lt $((grace * 10)) ]; do
		sleep 0.1
		waited=$((waited + 1))
	done
	if group_alive "$pgid"; then
		echo "    process group $pgid did not stop within ${grace}s: killing it" >&2
		kill -KILL -- "-$pgid" 2>/dev/null || true
		return 1
	fi
}

# Processes still carrying this run's marker, as "pid command" lines.
run_processes() {
	local proc pid
	for proc in /proc/[0-9]*; do
		pid="${proc#/proc/}"
		[ "$pid" = "$$" ] && continue
		if grep -qzx "E2E_RUN_ID=$E2E_RUN_ID" "$proc/environ" 2>/dev/null; then
			echo "$pid $(tr '\0' ' ' <"$proc/cmdline" 2>/dev/null | cut -c1-160)"
		fi
	done
}

show_log_tail() {
	local file="$1" lines="${2:-40}"
	[ -s "$file" ] || return 0
	echo "---- last $lines lines of $(basename "$file") ----" >&2
	tail -n "$lines" "$file" >&2
	echo "----" >&2
}

on_exit() {
	local status=$?
	trap - EXIT INT TERM
	phase_end
	set +e
	if [ "$status" -ne 0 ] && [ "$FAILED" -eq 0 ]; then
		fail "the e2e script ran to its end" "it stopped with status $status (see the output above)"
	fi
	local pgid
	for pgid in "${GROUPS_STARTED[@]}"; do stop_group "$pgid" 10 || true; done
	# Anything of this run that escaped its process group (a detached MCP server, say).
	local leftovers
	leftovers="$(run_processes)"
	if [ -n "$leftovers" ]; then
		echo "processes of this run still running at the end (killing them):" >&2
		echo "$leftovers" >&2
		awk '{print $1}' <<<"$leftovers" | xargs -r kill -KILL 2>/dev/null
	fi
	# On failure: the end of n8n's last log, and of the server's (failed commands showed theirs).
	if [ "$FAILED" -gt 0 ]; then
		[ -n "${LAST_N8N_LOG:-}" ] && show_log_tail "$LAST_N8N_LOG" 30
		[ -n "${START_LOG:-}" ] && show_log_tail "$START_LOG" 40
	fi
	echo
	echo "================ e2e summary ================"
	local line
	for line in "${RESULTS[@]}"; do echo "$line"; done
	echo "---------------- timings --------------------"
	for line in "${TIMINGS[@]}"; do echo "$line"; done
	if [ "${E2E_KEEP:-}" = 1 ]; then
		echo "run folder kept: $RUN_DIR"
	else
		rm -rf "$RUN_DIR"
	fi
	if [ "$FAILED" -gt 0 ]; then
		echo "RESULT: FAIL ($FAILED failed, $((${#RESULTS[@]} - FAILED)) passed)"
		exit 1
	fi
	echo "RESULT: PASS (${#RESULTS[@]} checks)"
	exit 0
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# Starts "$@" in the background in a process group of its own (in folder $BG_CWD when set),
# output to the file $1; sets BG_PID, which is also the group's id.
start_bg() {
	local log="$1"
	shift
	(cd "${BG_CWD:-.}" && E2E_RUN_ID="$E2E_RUN_ID" exec setsid "$@" >"$log" 2>&1 </dev/null) &
	BG_PID=$!
	GROUPS_STARTED+=("$BG_PID")
}

# Runs "$@" with a time limit of $1 seconds, output to $2; returns its status (124: timed out).
# Whatever the command leaves running in its process group is stopped, and said.
run_bounded() {
	local limit=$(($1 * SCALE)) log="$2" ticks=0 status=0
	shift 2
	start_bg "$log" "$@"
	local pid=$BG_PID
	while kill -0 "$pid" 2>/dev/null; do
		if [ "$ticks" -ge $((limit * 10)) ]; then
			echo "    timed out after ${limit}s: $*" >&2
			stop_group "$pid" 10 || true
			wait "$pid" 2>/dev/null
			return 124
		fi
		sleep 0.1
		ticks=$((ticks + 1))
	done
	wait "$pid" || status=$?
	# What it started must go with it; a child reading its stdin may take a moment to see it close.
	ticks=0
	while group_alive "$pid" && [ "$ticks" -lt 30 ]; do
		sleep 0.1
		ticks=$((ticks + 1))
	done
	if group_alive "$pid"; then
		echo "    still running 3 s after $(basename "$1") ${2:-} exited:" >&2
		ps -e -o pgid=,pid=,stat=,etimes=,args= | awk -v group="$pid" '$1 == group' | cut -c1-200 | sed 's/^/      /' >&2
		LEFT_RUNNING+=("$(basename "$1") ${2:-}")
		stop_group "$pid" 10 || true
	fi
	return "$status"
}
LEFT_RUNNING=()


# Waits up to $2 seconds for file $1 to exist and be non-empty.
wait_for_file() {
	local file="$1" limit=$(($2 * SCALE)) ticks=0
	while [ ! -s "$file" ]; do
		[ "$ticks" -ge $((limit * 10)) ] && return 1
		sleep 0.1
		ticks=$((ticks + 1))
	done
}

# Runs an n8n CLI command (bounded) with its own log; fails the check $1 when it fails.
N8N_CMD_COUNT=0
LAST_N8N_LOG=""
START_LOG=""
n8n_cli() {
	local check="$1" limit="$2"
	shift 2
	N8N_CMD_COUNT=$((N8N_CMD_COUNT + 1))
	local log="$LOGS/n8n-$N8N_CMD_COUNT-${1//[:\/]/-}.log"
	N8N_LOGS+=("$log")
	LAST_N8N_LOG="$log"
	if run_bounded "$limit" "$log" "$N8N_BIN" "$@"; then
		return 0
	else
		local status=$?
		fail "$check" "n8n $1 exited with status $status (log: $(basename "$log"))"
		show_log_tail "$log" 40
		return 1
	fi
}

# ---------------------------------------------------------------- 0. preconditions
node_major="$(node -p 'process.versions.node.split(".")[0]')"
if [ "$node_major" -lt 24 ]; then
	fail "Node.js 24 is on PATH" "node $(node -v) at $NODE24"
	exit 1
fi
# The file an MCP server package's bin runs (the servers are started with this node, not npx).
server_entry() {
	node -p 'const p=require("path");const m=require.resolve(process.argv[1]+"/package.json");const j=require(m);p.join(p.dirname(m),typeof j.bin==="string"?j.bin:Object.values(j.bin)[0])' "$1" 2>/dev/null || true
}
EVERYTHING_ENTRY="$(server_entry @modelcontextprotocol/server-everything)"
FILESYSTEM_ENTRY="$(server_entry @modelcontextprotocol/server-filesystem)"
if [ -z "$EVERYTHING_ENTRY" ] || [ ! -f "$EVERYTHING_ENTRY" ] || [ -z "$FILESYSTEM_ENTRY" ] || [ ! -f "$FILESYSTEM_ENTRY" ]; then
	fail "the MCP everything and filesystem servers are installed" "run: bash scripts/setup.sh"
	exit 1
fi
# The browser phase needs a Chromium (Debian: apt-get install -y chromium; scripts/test.sh does it)
# and playwright-core (a devDependency; it downloads no browser).
BROWSER=false
if [ "${E2E_SKIP_WEBHOOK:-}" != 1 ] && [ "${E2E_SKIP_BROWSER:-}" != 1 ]; then
	CHROMIUM="${E2E_CHROMIUM:-$(command -v chromium || command -v chromium-browser || true)}"
	if [ -z "$CHROMIUM" ] || [ ! -x "$CHROMIUM" ]; then
		fail "Chromium is installed (for the editor in a browser)" "no ${E2E_CHROMIUM:-chromium on PATH}: apt-get install -y chromium, or set E2E_CHROMIUM, or E2E_SKIP_BROWSER=1 to leave the browser out"
	elif ! node -e 'require.resolve("playwright-core")' 2>/dev/null; then
		fail "playwright-core is installed (for the editor in a browser)" "run: bash scripts/setup.sh"
	else
		BROWSER=true
	fi
fi
echo "node $(node -v) at $NODE24; npm $(npm -v); run folder $RUN_DIR"

# ---------------------------------------------------------------- 1. the real n8n, installed once
phase "install n8n"
if ! n8n_install "$LOGS/n8n-install.log"; then
	show_log_tail "$LOGS/n8n-install.log" 40
	fail "install n8n" "see the log above"
	exit 1
fi
n8n_version="$(cd "$RUN_DIR" && N8N_USER_FOLDER="$RUN_DIR/version-check" timeout 60 "$N8N_BIN" --version 2>/dev/null | tail -n1 || true)"
expected_version="$(n8n_pinned_version)"
if [ "$n8n_version" = "$expected_version" ]; then
	pass "n8n $expected_version is installed (e2e/.n8n)"
else
	fail "n8n $expected_version is installed (e2e/.n8n)" "n8n --version said '${n8n_version}'"
	exit 1
fi

# ---------------------------------------------------------------- 2. pack, install as a community package
phase "build + npm pack"
if [ "${E2E_SKIP_BUILD:-}" != 1 ]; then
	if ! npm run build >"$LOGS/build.log" 2>&1; then
		show_log_tail "$LOGS/build.log" 40
		fail "the package builds" "npm run build failed"
		exit 1
	fi
fi
pack_json="$(npm pack --json --pack-destination "$RUN_DIR" 2>"$LOGS/pack.log")" || {
	show_log_tail "$LOGS/pack.log" 20
	fail "npm pack" "failed"
	exit 1
}
TARBALL="$RUN_DIR/$(node -p 'JSON.parse(process.argv[1])[0].filename' "$pack_json")"
node -e '
	const [info] = JSON.parse(process.argv[1]);
	const files = info.files.map((f) => f.path);
	const pkg = require("./package.json");
	const declared = [...pkg.n8n.nodes, ...pkg.n8n.credentials];
	const missing = declared.filter((p) => !files.includes(p));
	const stray = files.filter((p) => /(^|\/)(test|e2e|src)\/|\.test\.|\.tgz$/.test(p));
	console.log(`    ${info.filename}: ${files.length} files, ${(info.size / 1024).toFixed(0)} kB packed`);
	if (missing.length) { console.log("FAIL\tthe tarball holds every file package.json declares to n8n\tmissing: " + missing.join(", ")); process.exit(1); }
	console.log("PASS\tthe tarball holds every file package.json declares to n8n");
	if (stray.length) console.log("    note: the tarball also holds " + stray.slice(0, 5).join(", "));
' "$pack_json" >"$RUN_DIR/check-pack.txt" 2>&1 || true
record_checks <"$RUN_DIR/check-pack.txt"

phase "install as a community package"
if package_install "$TARBALL" "$RUN_DIR/user" "${E2E_INSTALL_MODE:-}" "$LOGS/community-install.log"; then
	pass "the tarball installs into \$N8N_USER_FOLDER/.n8n/nodes (${E2E_INSTALL_MODE:-n8n 2.40 steps})"
else
	show_log_tail "$LOGS/community-install.log" 40
	fail "the tarball installs into \$N8N_USER_FOLDER/.n8n/nodes" "npm install failed"
	exit 1
fi

# ---------------------------------------------------------------- n8n's settings for every command
n8n_settings "$RUN_DIR/user" "$E2E_RUN_ID-key"
export N8N_LOG_LEVEL=info
# Where the Read/Write Files node may write (the scheduled example writes its summary there).
export N8N_RESTRICT_FILE_ACCESS_TO="$RUN_DIR/n8n-files"

phase "n8n loads the package"
# At debug level n8n's package loader says what it loaded from each package.
if N8N_LOG_LEVEL=debug n8n_cli "n8n loads the package's nodes" 180 export:nodes "--output=$RUN_DIR/nodes.json"; then
	run_checks nodes --export "$RUN_DIR/nodes.json"
	declared="$(node -p 'const {n8n} = require("./package.json"); `"credentials": ${n8n.credentials.length}, "nodes": ${n8n.nodes.length}`')"
	loaded="$(sed 's/\x1b\[[0-9;]*m//g' "$LAST_N8N_LOG" | grep -E "Loaded all credentials and nodes from $PACKAGE_NAME |Lazy-loading nodes and credentials from $PACKAGE_NAME " | head -n1 || true)"
	if [[ "$loaded" == *"$declared"* ]]; then
		pass "n8n's loader loaded every node and credential the package declares ($declared)"
	else
		fail "n8n's loader loaded every node and credential the package declares ($declared)" "its log said: ${loaded:-nothing about $PACKAGE_NAME}"
	fi
fi

# Writes the credentials the examples name (ids mcpEverything, openAi) for the model at $1.
write_credentials() {
	node -e '
		const [file, node, entry, path, runId, baseUrl, apiKey] = process.argv.slice(1);
		const credentials = [
			{
				id: "mcpEverything",
				name: "MCP everything (npx)",
				type: "mcpStdioServerApi",
				data: {
					command: node,
					arguments: { argument: [{ value: entry }, { value: "stdio" }] },
					environment: { variable: [{ name: "PATH", value: path }, { name: "E2E_RUN_ID", value: runId }] },
					cwd: "",
				},
			},
			{
				id: "openAi",
				name: "OpenAI",
				type: "openAiCompatibleApi",
				data: { baseUrl, apiKey, organization: "", headers: {} },
			},
		];
		require("fs").writeFileSync(file, JSON.stringify(credentials, null, 2));
	' "$RUN_DIR/credentials.json" "$NODE24" "$EVERYTHING_ENTRY" "$(dirname "$NODE24"):$PATH" "$E2E_RUN_ID" "$1" "$API_KEY"
}

# Writes examples/$1 with workflow id $2 to $3 (n8n's import needs an id of at most 21 characters).
# $4, if given, is JavaScript that edits the copy: it sees `workflow`, `node(type)` (the first node
# of that type), `useCredential(type, id, name)` (for every node using that type) and `arg` ($5).
# The committed example is never changed.
write_workflow() {
	node -e '
		const [example, id, file, edit, arg] = process.argv.slice(1);
		const workflow = JSON.parse(require("fs").readFileSync(example, "utf8"));
		const node = (type) => {
			const found = workflow.nodes.find((n) => n.type === type);
			if (!found) throw new Error(`${example} has no ${type} node`);
			return found;
		};
		const useCredential = (type, id, name) => {
			for (const n of workflow.nodes) if (n.credentials?.[type]) n.credentials[type] = { id, name };
		};
		if (edit) new Function("workflow", "node", "useCredential", "arg", edit)(workflow, node, useCredential, arg);
		require("fs").writeFileSync(file, JSON.stringify({ ...workflow, id, active: false }, null, 2));
	' "examples/$1" "$2" "$3" "${4:-}" "${5:-}"
}

# Starts the stand-in for scenario $1 (named $2, default $1: its state and log files; more
# arguments go to e2e/standin.ts); sets STANDIN_STATE, STANDIN_PID and STANDIN_URL.
start_standin() {
	local scenario="$1" name="${2:-$1}"
	shift $(($# < 2 ? $# : 2))
	STANDIN_STATE="$RUN_DIR/standin-$name.json"
	start_bg "$LOGS/standin-$name.log" node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON e2e/standin.ts \
		--scenario "$scenario" --state "$STANDIN_STATE" --api-key "$API_KEY" "$@"
	STANDIN_PID=$BG_PID
	if ! wait_for_file "$STANDIN_STATE" 20; then
		show_log_tail "$LOGS/standin-$name.log" 20
		return 1
	fi
	STANDIN_URL="$(node -p 'require(process.argv[1]).baseURL' "$STANDIN_STATE")"
	echo "    stand-in for '$name' at $STANDIN_URL"
}

# Writes the credentials of the editor's loop run (model at $1) and of the scheduled example
# (model at $2, the MCP filesystem server on folder $3) to $RUN_DIR/credentials-more.json.
write_more_credentials() {
	node -e '
		const [file, node, filesystem, path, runId, editorUrl, scheduleUrl, inbox, apiKey] = process.argv.slice(1);
		const model = (id, name, baseUrl) => ({ id, name, type: "openAiCompatibleApi", data: { baseUrl, apiKey, organization: "", headers: {} } });
		const credentials = [
			model("openAiEditor", "OpenAI (editor run)", editorUrl),
			model("openAiSchedule", "OpenAI (scheduled)", scheduleUrl),
			{
				id: "mcpInbox",
				name: "MCP filesystem: inbox",
				type: "mcpStdioServerApi",
				data: {
					command: node,
					arguments: { argument: [{ value: filesystem }, { value: inbox }] },
					environment: { variable: [{ name: "PATH", value: path }, { name: "E2E_RUN_ID", value: runId }] },
					cwd: "",
				},
			},
		];
		require("fs").writeFileSync(file, JSON.stringify(credentials, null, 2));
	' "$RUN_DIR/credentials-more.json" "$NODE24" "$FILESYSTEM_ENTRY" "$(dirname "$NODE24"):$PATH" "$E2E_RUN_ID" "$1" "$2" "$3" "$API_KEY"
}

# Stops the stand-in (if one runs), which then writes the requests it received to its state file.
STANDIN_PID=""
stop_standin() {
	[ -n "$STANDIN_PID" ] || return 0
	stop_group "$STANDIN_PID" 10 || true
	wait "$STANDIN_PID" 2>/dev/null || true
	STANDIN_PID=""
}

# Looks through the n8n logs written since the last look for signs that the package did not
# load or run cleanly; shows what n8n said about the package or community packages.
LOGS_LOOKED_AT=0
check_logs() {
	local label="$1" logs=("${N8N_LOGS[@]:$LOGS_LOOKED_AT}")
	LOGS_LOOKED_AT=${#N8N_LOGS[@]}
	local bad
	bad="$(sed 's/\x1b\[[0-9;]*m//g' "${logs[@]}" 2>/dev/null |
		grep -E 'Unrecognized node type|Unrecognized credential type|Failed to load package|Skipping package|Problem loading|Error loading|unknown node type' |
		sort -u | head -20 || true)"
	if [ -z "$bad" ]; then
		pass "$label: n8n logged no 'Unrecognized node type' or package loading errors"
	else
		fail "$label: n8n logged no 'Unrecognized node type' or package loading errors" "$bad"
	fi
	local said
	said="$(sed 's/\x1b\[[0-9;]*m//g' "${logs[@]}" 2>/dev/null | grep -v '^\s*"' | grep -vE '(^|\s)debug\s' |
		grep -iE "$PACKAGE_NAME|community (node|package)|unverified" | sort -u | head -20 || true)"
	if [ -n "$said" ]; then
		echo "    what n8n said about the package or community packages:"
		sed 's/^/      /' <<<"$said"
	fi
}

# ---------------------------------------------------------------- 3 + 4. the manual tool loop, headless
phase "run the tool loop (n8n execute)"
loop_ok=true
if ! start_standin loop; then
	fail "the stand-in starts" "no state file after 20 s"
	loop_ok=false
fi
if $loop_ok; then
	write_credentials "$STANDIN_URL"
	write_workflow mcp-tool-loop.json e2eToolLoop "$RUN_DIR/loop.json"
	n8n_cli "import the credentials" 120 import:credentials "--input=$RUN_DIR/credentials.json" &&
		n8n_cli "import the tool loop workflow" 120 import:workflow "--input=$RUN_DIR/loop.json" || loop_ok=false
fi
if $loop_ok; then
	n8n_cli "n8n execute runs the tool loop" 300 execute --id=e2eToolLoop --rawOutput || true
	LOOP_OUTPUT="$LAST_N8N_LOG"
	stop_standin
	if [ -s "$LOOP_OUTPUT" ]; then
		failed_before=$FAILED
		run_checks loop --output "$LOOP_OUTPUT" --standin "$STANDIN_STATE" --api-key "$API_KEY"
		[ "$FAILED" -eq "$failed_before" ] || show_log_tail "$LOOP_OUTPUT" 60
	fi
	check_logs "loop"
fi
stop_standin

# The same loop through another vendor's wire format, streamed: Anthropic's Messages API (SSE events
# with input_json_delta), through the HTTP helper of this real n8n.
phase "run the tool loop with Anthropic, streamed (n8n execute)"
if start_standin loop loop-anthropic --dialect anthropic; then
	node -e '
		const [file, baseUrl, apiKey] = process.argv.slice(1);
		const data = { baseUrl, apiKey, version: "2023-06-01", headers: {} };
		require("fs").writeFileSync(file, JSON.stringify([{ id: "anthropic", name: "Anthropic", type: "anthropicMessagesApi", data }]));
	' "$RUN_DIR/credentials-anthropic.json" "${STANDIN_URL%/v1}" "$API_KEY"
	write_workflow mcp-tool-loop.json e2eToolLoopAnthropic "$RUN_DIR/loop-anthropic.json" '
		const model = node("n8n-nodes-tool-calling.toolCallingModel");
		model.parameters = { ...model.parameters, provider: "anthropic", model: { __rl: true, mode: "id", value: "claude-sonnet-4-5" }, options: { ...model.parameters.options, stream: true } };
		model.credentials = { anthropicMessagesApi: { id: "anthropic", name: "Anthropic" } };'
	if n8n_cli "import the Anthropic credential" 120 import:credentials "--input=$RUN_DIR/credentials-anthropic.json" &&
		n8n_cli "import the Anthropic loop" 120 import:workflow "--input=$RUN_DIR/loop-anthropic.json"; then
		n8n_cli "n8n execute runs the loop with Anthropic, streamed" 300 execute --id=e2eToolLoopAnthropic --rawOutput || true
		VENDOR_OUTPUT="$LAST_N8N_LOG"
		stop_standin
		run_checks vendorLoop --output "$VENDOR_OUTPUT" --standin "$STANDIN_STATE" --api-key "$API_KEY" --dialect anthropic --path /v1/messages
	fi
else
	fail "the Anthropic stand-in starts" "no state file after 20 s"
fi
stop_standin
if [ ${#LEFT_RUNNING[@]} -eq 0 ]; then
	pass "every n8n command exited leaving no process behind"
else
	fail "every n8n command exited leaving no process behind" "left running after: ${LEFT_RUNNING[*]}"
fi
leftovers="$(run_processes)"
if [ -z "$leftovers" ]; then
	pass "no MCP server process outlived n8n execute"
else
	fail "no MCP server process outlived n8n execute" "$(tr '\n' ';' <<<"$leftovers")"
fi

# Signs in to n8n at $1 as the owner e2e/check.ts set up; the session cookie goes to $RUN_DIR/owner.cookies.
rest_login() {
	curl -sS --max-time 30 -o "$RUN_DIR/login.json" -w '%{http_code}' -c "$RUN_DIR/owner.cookies" \
		-H 'content-type: application/json' -d '{"emailOrLdapLoginId": "e2e@example.com", "password": "E2e-password-1"}' \
		"$1/rest/login" 2>/dev/null || echo 000
}

# Polls n8n at $1 for executions of workflow $2 (up to $3 seconds) until one has finished;
# passes when one succeeded.
wait_for_scheduled_run() {
	local base="$1" id="$2" limit=$(($3 * SCALE)) started=$SECONDS verdict="" login
	login="$(rest_login "$base")"
	if [ "$login" != 200 ]; then
		fail "scheduled: a run of the published example succeeded" "signing in over REST answered HTTP $login"
		return 0
	fi
	local filter
	filter="$(node -p 'encodeURIComponent(JSON.stringify({ workflowId: process.argv[1] }))' "$id")"
	while [ $((SECONDS - started)) -lt "$limit" ]; do
		curl -sS --max-time 30 -b "$RUN_DIR/owner.cookies" -o "$RUN_DIR/scheduled-executions.json" \
			"$base/rest/executions?filter=$filter" 2>/dev/null || true
		# "success N": N runs succeeded; "failed …": none did, and one ended otherwise; empty: none ended yet.
		verdict="$(node -e '
			let results = [];
			try { results = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8")).data?.results ?? []; } catch {}
			const ended = results.filter((e) => !["new", "running", "waiting"].includes(e.status));
			const ok = ended.filter((e) => e.status === "success");
			if (ok.length) console.log(`success ${ok.length} of ${results.length} (mode ${ok[0].mode}, ${new Date(ok[0].stoppedAt) - new Date(ok[0].startedAt)} ms)`);
			else if (ended.length) console.log(`failed ${ended.map((e) => `execution ${e.id}: ${e.status}`).join(", ")}`);
		' "$RUN_DIR/scheduled-executions.json")"
		[ -n "$verdict" ] && break
		sleep 2
	done
	case "$verdict" in
	success*) pass "scheduled: a run of the published example succeeded (${verdict#success }, seen after $((SECONDS - started)) s)" ;;
	failed*) fail "scheduled: a run of the published example succeeded" "${verdict#failed }" ;;
	*) fail "scheduled: a run of the published example succeeded" "no run ended within ${limit}s" ;;
	esac
	return 0
}

# What the scheduled runs did: the stand-in's record of the conversation (the real MCP filesystem
# server's answers went back to the model) and the summary file written.
check_scheduled_result() {
	node -e '
		const fs = require("fs");
		const [stateFile, inbox, folder] = process.argv.slice(1);
		const state = JSON.parse(fs.readFileSync(stateFile, "utf8"));
		const calls = (state.requests ?? []).filter((r) => r.method === "POST" && r.path.startsWith("/v1/chat/completions"));
		const toolResults = calls.flatMap((r) => (r.body?.messages ?? []).filter((m) => m.role === "tool").map((m) => String(m.content)));
		const report = (name, verdict) => console.log(verdict === true ? `PASS\t${name}` : `FAIL\t${name}\t${verdict}`);
		report("scheduled: the model got the inbox listing and a note from the real MCP filesystem server",
			toolResults.some((c) => c.includes("standup.md") && c.includes("todo.md")) && toolResults.some((c) => c.includes("The release ships on Friday."))
				? true
				: `tool results the model saw: ${JSON.stringify(toolResults).slice(0, 400)}`);
		const dir = `${folder}/summaries`;
		const files = fs.existsSync(dir) ? fs.readdirSync(dir).filter((f) => /^inbox-\d{4}-\d{2}-\d{2}\.txt$/.test(f)) : [];
		const text = files.length ? fs.readFileSync(`${dir}/${files[0]}`, "utf8") : undefined;
		report("scheduled: the summary file holds the model\x27s answer",
			text === state.answer ? true : files.length ? `${files[0]} holds ${JSON.stringify(text.slice(0, 200))}` : `no inbox-DATE.txt in ${dir}`);
	' "$SCHEDULE_STANDIN_STATE" "$INBOX" "$N8N_RESTRICT_FILE_ACCESS_TO" >"$RUN_DIR/check-scheduled.txt" 2>&1 || true
	local before=$FAILED
	record_checks <"$RUN_DIR/check-scheduled.txt"
	grep -q '^PASS\|^FAIL' "$RUN_DIR/check-scheduled.txt" || fail "scheduled: the stand-in's record could be read" "$(tail -n 3 "$RUN_DIR/check-scheduled.txt")"
	[ "$FAILED" -eq "$before" ] || show_log_tail "$START_LOG" 40
	return 0
}

# The editor in Chromium (e2e/browser.ts) against n8n at $1; then what the model stand-in saw of
# the editor's run. Screenshots in e2e/artifacts/; with E2E_UPDATE_DOCS=1 the README's go to docs/.
ARTIFACTS="$project_root/e2e/artifacts"
run_browser() {
	local base="$1" out="$RUN_DIR/check-browser.txt" status=0 before=$FAILED
	mkdir -p "$ARTIFACTS"
	rm -f "$ARTIFACTS"/*.png
	run_bounded 600 "$out" node --disable-warning=MODULE_TYPELESS_PACKAGE_JSON e2e/browser.ts \
		--base "$base" --workflow e2eEditorLoop --standin "$EDITOR_STANDIN_STATE" --api-key "$API_KEY" \
		--artifacts "$ARTIFACTS" --chromium "$CHROMIUM" --scale "$SCALE" \
		$($schedule_ok && echo --scheduled e2eScheduledInbox) || status=$?
	record_checks <"$out"
	if [ "$status" -ne 0 ] && [ "$FAILED" -eq "$before" ]; then
		fail "e2e/browser.ts ran" "exit status $status: $(tail -n 5 "$out" | tr '\n' ' ')"
	fi
	STANDIN_PID=$EDITOR_STANDIN_PID
	stop_standin
	node -e '
		const state = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
		const calls = (state.requests ?? []).filter((r) => r.method === "POST" && r.path.startsWith("/v1/chat/completions"));
		const ok = calls.length === 3 && state.remaining === 0;
		console.log(ok ? "PASS\tbrowser: the run from the editor had its 3 model turns"
			: `FAIL\tbrowser: the run from the editor had its 3 model turns\t${calls.length} requests, ${state.remaining} scripted turns left`);
	' "$EDITOR_STANDIN_STATE" >"$RUN_DIR/check-browser-standin.txt" 2>&1 || true
	record_checks <"$RUN_DIR/check-browser-standin.txt"
	if [ "$FAILED" -gt "$before" ]; then
		echo "    screenshots of the failures: $(cd "$ARTIFACTS" && ls failure-*.png 2>/dev/null | sed "s|^|e2e/artifacts/|" | tr '\n' ' ')" >&2
		show_log_tail "$START_LOG" 40
	elif [ "${E2E_UPDATE_DOCS:-}" = 1 ]; then
		cp "$ARTIFACTS/editor-loop.png" docs/editor-loop.png
		cp "$ARTIFACTS/editor-model-output.png" docs/editor-node-output.png
		echo "    copied to docs/: editor-loop.png, editor-node-output.png"
	fi
	return 0
}

# ---------------------------------------------------------------- 5. the webhook agent in `n8n start`
if [ "${E2E_SKIP_WEBHOOK:-}" = 1 ]; then
	phase_end
	echo "    E2E_SKIP_WEBHOOK=1: the webhook, scheduled and browser parts are left out"
	exit 0
fi
phase "run the webhook agent (n8n start)"
N8N_PORT="$(free_port)"
export N8N_PORT
webhook_ok=true
# The scheduled example and the editor's run of the loop get model stand-ins and credentials of
# their own (each stand-in serves one scripted conversation), imported before n8n starts.
schedule_ok=true
INBOX="$RUN_DIR/inbox"
mkdir -p "$INBOX" "$N8N_RESTRICT_FILE_ACCESS_TO/summaries"
printf '# Standup\nThe release ships on Friday.\n' >"$INBOX/standup.md"
printf '# Todo\n- screenshots for the docs\n' >"$INBOX/todo.md"
if start_standin schedule schedule --inbox "$INBOX"; then
	SCHEDULE_STANDIN_PID=$STANDIN_PID SCHEDULE_STANDIN_STATE=$STANDIN_STATE SCHEDULE_STANDIN_URL=$STANDIN_URL
else
	fail "the stand-in for the scheduled example starts" "no state file after 20 s"
	schedule_ok=false SCHEDULE_STANDIN_PID="" SCHEDULE_STANDIN_URL=""
fi
EDITOR_STANDIN_PID="" EDITOR_STANDIN_URL=""
if $BROWSER; then
	if start_standin loop editor; then
		EDITOR_STANDIN_PID=$STANDIN_PID EDITOR_STANDIN_STATE=$STANDIN_STATE EDITOR_STANDIN_URL=$STANDIN_URL
	else
		fail "the stand-in for the editor's run starts" "no state file after 20 s"
		BROWSER=false
	fi
fi
STANDIN_PID=""
start_standin webhook || { fail "the stand-in starts" "no state file after 20 s"; webhook_ok=false; }
if $webhook_ok; then
	write_credentials "$STANDIN_URL"
	write_workflow webhook-agent.json e2eWebhookAgent "$RUN_DIR/webhook.json"
	{ n8n_cli "import the credentials (webhook model)" 120 import:credentials "--input=$RUN_DIR/credentials.json" &&
		n8n_cli "import the webhook workflow" 120 import:workflow "--input=$RUN_DIR/webhook.json" &&
		n8n_cli "publish the webhook workflow" 120 publish:workflow --id=e2eWebhookAgent; } || webhook_ok=false
fi
if $webhook_ok && { $schedule_ok || $BROWSER; }; then
	write_more_credentials "${EDITOR_STANDIN_URL:-http://127.0.0.1:9/v1}" "${SCHEDULE_STANDIN_URL:-http://127.0.0.1:9/v1}" "$INBOX"
	n8n_cli "import the credentials (scheduled example, editor run)" 120 import:credentials "--input=$RUN_DIR/credentials-more.json" ||
		schedule_ok=false BROWSER=false
fi
if $webhook_ok && $schedule_ok; then
	# Only the imported copy changes: every 10 seconds instead of every morning, its own
	# credentials, and the summary written under this run's n8n-files folder.
	write_workflow scheduled-inbox-summary.json e2eScheduledInbox "$RUN_DIR/scheduled.json" '
		node("n8n-nodes-base.scheduleTrigger").parameters.rule = { interval: [{ field: "seconds", secondsInterval: 10 }] };
		useCredential("openAiCompatibleApi", "openAiSchedule", "OpenAI (scheduled)");
		useCredential("mcpStdioServerApi", "mcpInbox", "MCP filesystem: inbox");
		const write = node("n8n-nodes-base.readWriteFile").parameters;
		if (!write.fileName.includes("/home/node/.n8n-files/")) throw new Error(`unexpected file name ${write.fileName}`);
		write.fileName = write.fileName.replace("/home/node/.n8n-files/", `${arg}/`);
	' "$N8N_RESTRICT_FILE_ACCESS_TO" || schedule_ok=false
	$schedule_ok && { n8n_cli "import the scheduled example" 120 import:workflow "--input=$RUN_DIR/scheduled.json" &&
		n8n_cli "publish the scheduled example" 120 publish:workflow --id=e2eScheduledInbox; } || schedule_ok=false
fi
if $webhook_ok && $BROWSER; then
	write_workflow mcp-tool-loop.json e2eEditorLoop "$RUN_DIR/editor-loop.json" \
		'useCredential("openAiCompatibleApi", "openAiEditor", "OpenAI (editor run)")' &&
		n8n_cli "import the loop example for the editor" 120 import:workflow "--input=$RUN_DIR/editor-loop.json" || BROWSER=false
fi
if $webhook_ok; then
	START_LOG="$LOGS/n8n-start.log"
	N8N_LOGS+=("$START_LOG")
	LAST_N8N_LOG=""
	start_bg "$START_LOG" "$N8N_BIN" start
	N8N_PID=$BG_PID
	base="http://127.0.0.1:$N8N_PORT"
	ready=false
	for ((i = 0; i < 180 * SCALE; i++)); do
		if ! kill -0 "$N8N_PID" 2>/dev/null; then break; fi
		if curl -fsS --max-time 2 "$base/healthz" >/dev/null 2>&1 && grep -q 'Editor is now accessible' "$START_LOG"; then
			ready=true
			break
		fi
		sleep 1
	done
	if $ready; then
		pass "n8n start serves /healthz on 127.0.0.1:$N8N_PORT (after ${i}s)"
		# The webhook is registered while n8n activates published workflows: retry a 404 briefly.
		status=000
		for ((i = 0; i < 20; i++)); do
			status="$(curl -sS --max-time $((120 * SCALE)) -o "$RUN_DIR/webhook-reply.json" -w '%{http_code}' \
				-H 'content-type: application/json' -d '{"question": "What is 1.5 + 2.25?"}' "$base/webhook/ask" || echo 000)"
			[ "$status" = 404 ] || break
			sleep 1
		done
		# The editor's side, while n8n, the MCP server and the stand-in are up.
		run_checks editor --base "$base" --credentials "$RUN_DIR/credentials.json" \
			--types "$N8N_USER_FOLDER/.cache/n8n/public/types"
		stop_standin
		run_checks webhook --response "$RUN_DIR/webhook-reply.json" --status "$status" \
			--standin "$STANDIN_STATE" --api-key "$API_KEY"

		# ------------------------------------------------------------ 6. the scheduled example
		if $schedule_ok; then
			phase "the scheduled example (n8n start)"
			wait_for_scheduled_run "$base" e2eScheduledInbox 90
		fi

		# ------------------------------------------------------------ 7. the editor in a browser
		if $BROWSER; then
			phase "the editor in a browser (Chromium)"
			run_browser "$base"
		fi

		# ------------------------------------------------------------ 8. a remote MCP server behind OAuth
		phase "a remote MCP server behind OAuth 2.1 (n8n start)"
		run_checker e2e/run-phase.ts oauth --base "$base" --user-folder "$N8N_USER_FOLDER" --run-dir "$RUN_DIR" \
			--run-id "$E2E_RUN_ID" --scale "$SCALE"
	else
		fail "n8n start serves /healthz" "not ready within $((180 * SCALE))s$(kill -0 "$N8N_PID" 2>/dev/null || echo ' (n8n exited)')"
		show_log_tail "$START_LOG" 60
	fi
	phase "stop n8n"
	# Stop n8n as an operator would (SIGTERM) and see it go, MCP servers included.
	stopped_at=$(date +%s)
	if stop_group "$N8N_PID" 45; then
		pass "n8n start stopped on SIGTERM, with everything it started (in $(($(date +%s) - stopped_at)) s)"
	else
		fail "n8n start stopped on SIGTERM, with everything it started" "still running after 45 s: killed"
	fi
	wait "$N8N_PID" 2>/dev/null || true
	stop_standin
	if [ -n "$SCHEDULE_STANDIN_PID" ]; then
		STANDIN_PID=$SCHEDULE_STANDIN_PID
		stop_standin
		$ready && $schedule_ok && check_scheduled_result
	fi
	check_logs "n8n start"
	leftovers="$(run_processes)"
	if [ -z "$leftovers" ]; then
		pass "no MCP server process outlived n8n start"
	else
		fail "no MCP server process outlived n8n start" "$(tr '\n' ';' <<<"$leftovers")"
	fi
fi
phase_end
