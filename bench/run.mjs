// Benchmarks of the hot paths, on the built library (run `npm run build` first, or `npm run bench`).
// Real MCP servers over stdio; numbers vary with the machine, so compare rows of one run.
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const {
	ConnectionPool,
	DIALECTS,
	McpConnection,
	SchemaValidator,
	createRedactor,
	executePendingCalls,
} = require(path.join(root, 'dist/lib'));
const { readFileSync } = require('node:fs');
const { mapConcurrently } = require(path.join(root, 'dist/lib/util/concurrency'));

const faultServer = {
	transport: 'stdio',
	command: process.execPath,
	args: [path.join(root, 'test/servers/fault-server.mjs')],
	env: {},
};
const callOptions = { timeoutMs: 30_000 };
const rows = [];

async function measure(name, iterations, run) {
	const started = process.hrtime.bigint();
	await run();
	const ms = Number(process.hrtime.bigint() - started) / 1e6;
	rows.push({
		benchmark: name,
		iterations,
		'total ms': ms.toFixed(0),
		'ms each': (ms / iterations).toFixed(3),
		'per second': Math.round((iterations * 1000) / ms),
	});
}

const pool = new ConnectionPool({ maxSize: 4, idleTimeoutMs: 60_000, connectTimeoutMs: 30_000 });
try {
	await pool.use(faultServer, (connection) => connection.listTools());

	await measure('tools/call, pooled connection', 1000, async () => {
		for (let i = 0; i < 1000; i++)
			await pool.use(faultServer, (c) => c.callTool('echo', { text: `call ${i}` }, callOptions));
	});

	await measure('tools/call, new process per call (what per-call clients do)', 20, async () => {
		for (let i = 0; i < 20; i++) {
			const connection = await McpConnection.open(faultServer, 30_000);
			await connection.callTool('echo', { text: `call ${i}` }, callOptions);
			await connection.close();
		}
	});

	const tools = (await pool.use(faultServer, (c) => c.listTools())).map((tool) => ({
		...tool,
		server: 'fault-server',
		mcpName: tool.name,
	}));
	const conversation = (i) => ({
		messages: [],
		tools,
		toolCalls: [{ id: `c${i}`, name: 'slow', arguments: { ms: 20 }, rawArguments: '{"ms":20}' }],
		trace: [],
	});
	const validator = new SchemaValidator();
	// Every call is traced in full, as the nodes do by default.
	const tracePolicy = {
		payloads: 'full',
		maxPayloadBytes: 256 * 1024,
		redactor: createRedactor({ secrets: [] }),
	};
	for (const concurrency of [1, 8]) {
		await measure(`100 items with a 20 ms tool, ${concurrency} in parallel`, 100, () =>
			mapConcurrently(
				Array.from({ length: 100 }, (_, i) => i),
				concurrency,
				(i) =>
					pool.use(faultServer, (connection) =>
						executePendingCalls(conversation(i), {
							server: connection,
							serverLabel: 'fault-server',
							nodeName: 'bench',
							validator,
							storeBinary: async () => 'unused',
							options: callOptions,
							tracePolicy,
						}),
					),
			),
		);
	}

	const schema = tools.find((tool) => tool.name === 'submit_order').inputSchema;
	const args = {
		customer: { name: 'Ada', email: 'ada@example.com' },
		items: [{ sku: 'ABC-123', quantity: 2 }],
		priority: 'high',
	};
	await measure('argument check, schema compiled once', 20_000, async () => {
		for (let i = 0; i < 20_000; i++) validator.check(schema, args);
	});
	await measure('argument check, schema compiled every time', 200, async () => {
		for (let i = 0; i < 200; i++) new SchemaValidator().check(schema, args);
	});

	// A model request carries every tool each round: translating 26 real tool schemas (the GitHub
	// MCP server's) and a short history into each vendor's request body.
	const githubTools = JSON.parse(
		readFileSync(path.join(root, 'test/fixtures/tool-schemas/server-github.json'), 'utf8'),
	).tools;
	const history = {
		messages: [{ role: 'user', content: 'List my open pull requests.' }],
		tools: githubTools,
	};
	for (const [id, dialect] of Object.entries(DIALECTS)) {
		await measure(`${id} request body with 26 tools`, 500, async () => {
			for (let i = 0; i < 500; i++)
				dialect.buildRequest(history, {
					model: 'm',
					toolChoice: 'auto',
					stream: false,
					strict: true,
				});
		});
	}
} finally {
	await pool.closeAll();
}
console.table(rows);
