# Sourced after scripts/node24.sh by the scripts that run a REAL n8n (e2e.sh, demo.sh): the n8n
# pinned in e2e/n8n/package-lock.json, installed once into e2e/.n8n (cached by the lock's hash),
# and this package packed and installed into an n8n user folder the way Settings → Community
# Nodes installs it. Functions return non-zero on failure; their logs go to the file named.

N8N_PIN_DIR="$project_root/e2e/n8n"
N8N_HOME="$project_root/e2e/.n8n"
N8N_BIN="$N8N_HOME/node_modules/.bin/n8n"
PACKAGE_NAME="$(node -p 'require(process.argv[1]).name' "$project_root/package.json")"

_n8n_headers_match() {
	[ -f "$1/include/node/node_version.h" ] &&
		grep -q "define NODE_MAJOR_VERSION $(node -p 'process.versions.node.split(".")[0]')\$" "$1/include/node/node_version.h"
}

# The Node headers node-gyp builds n8n's native modules (sqlite3, isolated-vm) against.
_n8n_node_headers() {
	local candidate
	for candidate in "${npm_config_nodedir:-}" "$(npm config get nodedir 2>/dev/null)" "$(dirname "$(dirname "$(readlink -f "$(command -v node)")")")"; do
		if [ -n "$candidate" ] && _n8n_headers_match "$candidate"; then
			echo "$candidate"
			return 0
		fi
	done
	# This node came without headers (a distro package, say): take them from the npm registry.
	local arch version prefix="$project_root/e2e/.node-headers"
	arch="$(node -p 'process.arch')"
	version="$(node -p 'process.versions.node')"
	candidate="$prefix/node_modules/node-linux-$arch"
	if ! _n8n_headers_match "$candidate"; then
		npm install --silent --no-save --no-audit --no-fund --ignore-scripts --prefix "$prefix" "node-linux-$arch@$version" >&2 ||
			npm install --silent --no-save --no-audit --no-fund --ignore-scripts --prefix "$prefix" "node-linux-$arch@${version%%.*}" >&2
	fi
	_n8n_headers_match "$candidate" && echo "$candidate"
}

# The pinned n8n version.
n8n_pinned_version() {
	node -p 'require(process.argv[1]).dependencies.n8n' "$N8N_PIN_DIR/package.json"
}

# Installs the pinned n8n into e2e/.n8n unless this lock is installed already; logs to $1.
# Install scripts stay off (the Kafka client's cannot build here); sqlite3 and isolated-vm are
# rebuilt against this Node.
n8n_install() {
	local log="$1" marker="$N8N_HOME/.installed-lock-hash" lock_hash nodedir
	lock_hash="$(cat "$N8N_PIN_DIR/package.json" "$N8N_PIN_DIR/package-lock.json" <(node -p 'process.versions.modules') | sha256sum | cut -d' ' -f1)"
	if [ -x "$N8N_BIN" ] && [ "$(cat "$marker" 2>/dev/null)" = "$lock_hash" ]; then
		echo "    n8n $(n8n_pinned_version) already installed (e2e/.n8n)"
		return 0
	fi
	nodedir="$(_n8n_node_headers)" || true
	if [ -z "$nodedir" ]; then
		echo "    no Node headers for node-gyp" >"$log"
		return 1
	fi
	mkdir -p "$N8N_HOME"
	rm -f "$marker"
	cp "$N8N_PIN_DIR/package.json" "$N8N_PIN_DIR/package-lock.json" "$N8N_HOME/"
	echo "    installing n8n $(n8n_pinned_version) into e2e/.n8n (about 2200 packages: a few minutes, once)"
	(cd "$N8N_HOME" && timeout 1800 npm ci --ignore-scripts --no-audit --no-fund --loglevel=error) >"$log" 2>&1 || return 1
	(cd "$N8N_HOME" && npm_config_nodedir="$nodedir" timeout 900 npm rebuild sqlite3 isolated-vm --loglevel=error) >>"$log" 2>&1 || return 1
	echo "$lock_hash" >"$marker"
}

# Packs the package (as built in dist/) into folder $1; prints the tarball's path.
package_pack() {
	local json
	json="$(cd "$project_root" && npm pack --json --pack-destination "$1" 2>/dev/null)" || return 1
	echo "$1/$(node -p 'JSON.parse(process.argv[1])[0].filename' "$json")"
}

# Installs tarball $1 into the n8n user folder $2 with the steps n8n 2.40's
# CommunityPackagesService.downloadPackage takes: unpack into nodes/node_modules/<name>, drop
# dev/peer/optional dependencies, `npm install` inside it, record it in nodes/package.json.
# With $3 = npm, a plain `npm install <tarball>` in the nodes folder instead (n8n 1.x's way).
package_install() {
	local tarball="$1" nodes_dir="$2/.n8n/nodes" mode="${3:-}" log="${4:-/dev/null}"
	mkdir -p "$nodes_dir"
	printf '{\n  "name": "installed-nodes",\n  "private": true,\n  "dependencies": {}\n}' >"$nodes_dir/package.json"
	if [ "$mode" = npm ]; then
		cp "$tarball" "$nodes_dir/"
		(cd "$nodes_dir" && timeout 300 npm install "./$(basename "$tarball")" --audit=false --fund=false --ignore-scripts=true --loglevel=error) >"$log" 2>&1
		return
	fi
	local package_dir="$nodes_dir/node_modules/$PACKAGE_NAME" version
	version="$(tar -xzOf "$tarball" package/package.json | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).version')"
	mkdir -p "$package_dir"
	tar -xzf "$tarball" -C "$package_dir" --strip-components=1
	node -e '
		const fs = require("fs");
		const file = process.argv[1];
		const { devDependencies, peerDependencies, optionalDependencies, ...kept } = JSON.parse(fs.readFileSync(file, "utf8"));
		fs.writeFileSync(file, JSON.stringify(kept, null, 2), "utf-8");
	' "$package_dir/package.json"
	(cd "$package_dir" && timeout 300 npm install --audit=false --fund=false --bin-links=false \
		--install-strategy=shallow --ignore-scripts=true --package-lock=false "--registry=$(npm config get registry)") >"$log" 2>&1 || return 1
	node -e '
		const fs = require("fs");
		const [file, name, version] = process.argv.slice(1);
		const json = JSON.parse(fs.readFileSync(file, "utf8"));
		json.dependencies[name] = version;
		fs.writeFileSync(file, JSON.stringify(json, null, 2), "utf-8");
	' "$nodes_dir/package.json" "$PACKAGE_NAME" "$version"
}

# n8n's settings for a local, quiet instance with its own user folder $1 and encryption key $2.
n8n_settings() {
	export N8N_USER_FOLDER="$1"
	export N8N_ENCRYPTION_KEY="$2"
	export N8N_DIAGNOSTICS_ENABLED=false
	export N8N_VERSION_NOTIFICATIONS_ENABLED=false
	export N8N_TEMPLATES_ENABLED=false
	export N8N_LOG_OUTPUT=console
	export N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS=true
	export N8N_LISTEN_ADDRESS="${N8N_LISTEN_ADDRESS:-127.0.0.1}"
	export N8N_HOST="${N8N_HOST:-127.0.0.1}"
	export N8N_RUNNERS_BROKER_LISTEN_ADDRESS=127.0.0.1
	export N8N_RUNNERS_BROKER_PORT="${N8N_RUNNERS_BROKER_PORT:-$(free_port)}"
	export DB_TYPE=sqlite
	export EXECUTIONS_MODE=regular
	unset N8N_CUSTOM_EXTENSIONS
}

# A TCP port nothing listens on.
free_port() {
	node -e 'const s = require("net").createServer().listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); })'
}
