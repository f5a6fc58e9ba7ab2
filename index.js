// n8n loads the nodes and credentials listed in package.json's "n8n" section; this entry point
// exposes the same library for programmatic use (dialects, schema checks, MCP connections).
module.exports = require('./dist/lib');
