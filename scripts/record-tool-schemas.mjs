// Records the tools/list of real MCP servers from npm into test/fixtures/tool-schemas/, the corpus
// the schema-translation tests run on. Run it by hand to refresh the corpus, or some of it:
//   source scripts/node24.sh && node scripts/record-tool-schemas.mjs [server-memory …]
// Each server is installed at its exact version into a folder of its own under the system's temp
// folder, with install scripts off (so nothing downloads a browser), and started with only PATH,
// a throw-away HOME (also the working folder) and the dummy keys it wants before it lists its tools. None of them needs the
// network to list its tools. The list is read as the server sent it: the MCP SDK's own result
// check would refuse some real schemas (an inputSchema without "type"), and those are the point.
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ResultSchema } from '@modelcontextprotocol/sdk/types.js';

const LIST_TIMEOUT_MS = 60_000;
const sandbox = mkdtempSync(join(tmpdir(), 'tool-schemas-'));
const home = join(sandbox, 'home');
mkdirSync(home);

// `file`: the fixture's name; `bin`: the package's command; `args`: its arguments ("$HOME" is the
// throw-away home); `env`: dummy values for keys it checks at start.
const servers = JSON.parse(
	readFileSync(new URL('./tool-schema-servers.json', import.meta.url), 'utf8'),
);

async function listTools(server, folder) {
	const client = new Client({ name: 'record-tool-schemas', version: '1.0.0' });
	await client.connect(
		new StdioClientTransport({
			command: join(folder, 'node_modules/.bin', server.bin),
			args: (server.args ?? []).map((arg) => (arg === '$HOME' ? home : arg)),
			env: { PATH: process.env.PATH, HOME: home, ...server.env },
			cwd: home,
			stderr: 'ignore',
		}),
	);
	try {
		const tools = [];
		let cursor;
		do {
			const page = await client.request(
				{ method: 'tools/list', params: cursor ? { cursor } : {} },
				// Any result: the tools are recorded as sent, unchecked.
				ResultSchema,
				{ timeout: LIST_TIMEOUT_MS },
			);
			tools.push(...page.tools);
			cursor = page.nextCursor;
		} while (cursor);
		return { tools, serverInfo: client.getServerVersion() };
	} finally {
		await client.close();
	}
}

const chosen = process.argv.slice(2);
for (const server of servers.filter(({ file }) => chosen.length === 0 || chosen.includes(file))) {
	const folder = join(sandbox, server.file);
	mkdirSync(folder);
	writeFileSync(join(folder, 'package.json'), '{"private":true}\n');
	execFileSync(
		'npm',
		['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefix', folder, server.package],
		{ stdio: ['ignore', 'ignore', 'inherit'] },
	);
	const name = server.package.slice(0, server.package.lastIndexOf('@'));
	const { version } = JSON.parse(
		readFileSync(join(folder, 'node_modules', name, 'package.json'), 'utf8'),
	);
	const { tools, serverInfo } = await listTools(server, folder);
	const fixture = {
		server: name,
		version,
		serverInfo: { name: serverInfo?.name, version: serverInfo?.version },
		recordedWith: 'scripts/record-tool-schemas.mjs',
		tools,
	};
	writeFileSync(
		join('test/fixtures/tool-schemas', `${server.file}.json`),
		`${JSON.stringify(fixture, null, '\t')}\n`,
	);
	console.log(`${server.file}: ${tools.length} tools (${name}@${version})`);
}
rmSync(sandbox, { recursive: true, force: true });
