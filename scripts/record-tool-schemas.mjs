// Records the tools/list of real MCP servers from npm into test/fixtures/tool-schemas/, the corpus
// the schema-translation tests run on. Run it by hand to refresh the corpus:
//   source scripts/node24.sh && node scripts/record-tool-schemas.mjs
import { execFileSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';

const sandbox = mkdtempSync(join(tmpdir(), 'tool-schemas-'));
// Not a dependency of the package: installed for the recording only. It lists its tools without a token.
const GITHUB_SERVER = '@modelcontextprotocol/server-github@2025.4.8';
execFileSync('npm', ['install', '--prefix', sandbox, '--no-audit', '--no-fund', GITHUB_SERVER], {
	stdio: 'inherit',
});
const servers = [
	{
		file: 'server-everything',
		package: '@modelcontextprotocol/server-everything',
		command: 'npx',
		args: ['--no-install', 'mcp-server-everything'],
	},
	{
		file: 'server-filesystem',
		package: '@modelcontextprotocol/server-filesystem',
		command: 'npx',
		args: ['--no-install', 'mcp-server-filesystem', sandbox],
	},
	{
		file: 'server-github',
		package: '@modelcontextprotocol/server-github',
		command: join(sandbox, 'node_modules/.bin/mcp-server-github'),
		args: [],
	},
];

for (const server of servers) {
	const client = new Client({ name: 'record-tool-schemas', version: '1.0.0' });
	await client.connect(
		new StdioClientTransport({
			command: server.command,
			args: server.args,
			env: { PATH: process.env.PATH, HOME: process.env.HOME },
			stderr: 'ignore',
		}),
	);
	const tools = [];
	let cursor;
	do {
		const page = await client.listTools(cursor ? { cursor } : {});
		tools.push(...page.tools);
		cursor = page.nextCursor;
	} while (cursor);
	const info = client.getServerVersion();
	await client.close();
	const fixture = {
		server: server.package,
		version: info?.version,
		recordedWith: 'scripts/record-tool-schemas.mjs',
		tools,
	};
	writeFileSync(
		join('test/fixtures/tool-schemas', `${server.file}.json`),
		`${JSON.stringify(fixture, null, '\t')}\n`,
	);
	console.log(`${server.file}: ${tools.length} tools (version ${info?.version})`);
}
