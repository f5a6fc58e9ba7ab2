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

/** `file`: the fixture's name; `bin`: the package's command; `env`: dummy values for keys it checks at start. */
const servers = [
	{
		file: 'server-everything',
		package: '@modelcontextprotocol/server-everything@2026.8.31',
		bin: 'mcp-server-everything',
	},
	{
		file: 'server-filesystem',
		package: '@modelcontextprotocol/server-filesystem@2026.8.31',
		bin: 'mcp-server-filesystem',
		args: [home],
	},
	{
		file: 'server-github',
		package: '@modelcontextprotocol/server-github@2025.4.8',
		bin: 'mcp-server-github',
	},
	{
		file: 'server-memory',
		package: '@modelcontextprotocol/server-memory@2026.8.31',
		bin: 'mcp-server-memory',
	},
	{
		file: 'server-sequential-thinking',
		package: '@modelcontextprotocol/server-sequential-thinking@2026.8.31',
		bin: 'mcp-server-sequential-thinking',
	},
	{
		file: 'server-puppeteer',
		package: '@modelcontextprotocol/server-puppeteer@2025.5.12',
		bin: 'mcp-server-puppeteer',
	},
	{
		file: 'server-brave-search',
		package: '@modelcontextprotocol/server-brave-search@0.6.2',
		bin: 'mcp-server-brave-search',
		env: { BRAVE_API_KEY: 'unused' },
	},
	{
		file: 'server-slack',
		package: '@modelcontextprotocol/server-slack@2025.4.25',
		bin: 'mcp-server-slack',
		env: { SLACK_BOT_TOKEN: 'unused', SLACK_TEAM_ID: 'unused' },
	},
	// The database is only reached when a query runs.
	{
		file: 'server-postgres',
		package: '@modelcontextprotocol/server-postgres@0.6.2',
		bin: 'mcp-server-postgres',
		args: ['postgresql://localhost/unused'],
	},
	{
		file: 'server-gitlab',
		package: '@modelcontextprotocol/server-gitlab@2025.4.25',
		bin: 'mcp-server-gitlab',
		env: { GITLAB_PERSONAL_ACCESS_TOKEN: 'unused' },
	},
	{
		file: 'server-google-maps',
		package: '@modelcontextprotocol/server-google-maps@0.6.2',
		bin: 'mcp-server-google-maps',
		env: { GOOGLE_MAPS_API_KEY: 'unused' },
	},
	{ file: 'playwright-mcp', package: '@playwright/mcp@0.0.83', bin: 'playwright-mcp' },
	{ file: 'context7-mcp', package: '@upstash/context7-mcp@4.1.1', bin: 'context7-mcp' },
	{
		file: 'firecrawl-mcp',
		package: 'firecrawl-mcp@3.26.0',
		bin: 'firecrawl-mcp',
		env: { FIRECRAWL_API_KEY: 'unused' },
	},
	{
		file: 'notion-mcp-server',
		package: '@notionhq/notion-mcp-server@2.5.2',
		bin: 'notion-mcp-server',
		env: { NOTION_TOKEN: 'unused' },
	},
	{
		file: 'mcp-server-kubernetes',
		package: 'mcp-server-kubernetes@4.1.7',
		bin: 'mcp-server-kubernetes',
	},
	{
		file: 'mongodb-mcp-server',
		package: 'mongodb-mcp-server@3.0.4',
		bin: 'mongodb-mcp-server',
		env: { MDB_MCP_TELEMETRY: 'disabled' },
	},
	{
		file: 'desktop-commander',
		package: '@wonderwhy-er/desktop-commander@0.2.52',
		bin: 'desktop-commander',
	},
	{
		file: 'chrome-devtools-mcp',
		package: 'chrome-devtools-mcp@1.11.0',
		bin: 'chrome-devtools-mcp',
	},
	{
		file: 'tavily-mcp',
		package: 'tavily-mcp@0.2.22',
		bin: 'tavily-mcp',
		env: { TAVILY_API_KEY: 'unused' },
	},
	{
		file: 'exa-mcp-server',
		package: 'exa-mcp-server@3.4.1',
		bin: 'exa-mcp-server',
		env: { EXA_API_KEY: 'unused' },
	},
	{
		file: 'sentry-mcp-server',
		package: '@sentry/mcp-server@0.39.0',
		bin: 'sentry-mcp',
		env: { SENTRY_ACCESS_TOKEN: 'unused' },
	},
	{
		file: 'hubspot-mcp-server',
		package: '@hubspot/mcp-server@0.4.0',
		bin: 'mcp-hubspot',
		env: { PRIVATE_APP_ACCESS_TOKEN: 'unused' },
	},
	{
		file: 'figma-developer-mcp',
		package: 'figma-developer-mcp@0.13.2',
		bin: 'figma-developer-mcp',
		args: ['--stdio'],
		env: { FIGMA_API_KEY: 'unused', IMAGE_DIR: '/srv/figma-images' },
	},
];

async function listTools(server, folder) {
	const client = new Client({ name: 'record-tool-schemas', version: '1.0.0' });
	await client.connect(
		new StdioClientTransport({
			command: join(folder, 'node_modules/.bin', server.bin),
			args: server.args ?? [],
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
