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
	const executionContext = (connection, parallelCalls) => ({
		server: connection,
		serverLabel: 'fault-server',
		nodeName: 'bench',
		validator,
		storeBinary: async () => 'unused',
		options: callOptions,
		redactor: tracePolicy.redactor,
		tracePolicy,
		parallelCalls,
	});
	for (const concurrency of [1, 8]) {
		await measure(`100 items with a 20 ms tool, ${concurrency} in parallel`, 100, () =>
			mapConcurrently(
				Array.from({ length: 100 }, (_, i) => i),
				concurrency,
				(i) =>
					pool.use(faultServer, (connection) =>
						executePendingCalls(conversation(i), executionContext(connection)),
					),
			),
		);
	}

	// One model turn asking for five calls of a slow tool its server annotates read-only.
	const readOnlyTools = tools.map((tool) =>
		tool.name === 'slow' ? { ...tool, annotations: { readOnlyHint: true } } : tool,
	);
	const fiveCalls = {
		messages: [],
		tools: readOnlyTools,
		toolCalls: Array.from({ length: 5 }, (_, i) => ({
			id: `p${i}`,
			name: 'slow',
			arguments: { ms: 200 },
			rawArguments: '{"ms":200}',
		})),
		trace: [],
	};
	for (const [parallelCalls, how] of [
		['never', 'one after another'],
		['readOnly', 'at once (read-only)'],
	]) {
		await measure(`one item, 5 calls of a 200 ms tool, ${how}`, 1, () =>
			pool.use(faultServer, (connection) =>
				executePendingCalls(fiveCalls, executionContext(connection, parallelCalls)),
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

	// Every item a node writes is redacted whole, for each credential secret in every encoded form:
	// a conversation after one round trip with the GitHub server's 26 tools and six traced calls.
	const githubTools = JSON.parse(
		readFileSync(path.join(root, 'test/fixtures/tool-schemas/server-github.json'), 'utf8'),
	).tools;
	const item = {
		messages: [
			{ role: 'user', content: 'List my open pull requests.' },
			{ role: 'tool', tool_call_id: 'c1', content: 'lorem ipsum dolor sit amet '.repeat(150) },
		],
		tools: githubTools,
		toolCalls: [],
		trace: Array.from({ length: 6 }, (_, i) => ({
			step: 'tools.call.result',
			callId: `c${i}`,
			payload: { content: [{ type: 'text', text: 'lorem ipsum dolor sit amet '.repeat(100) }] },
		})),
	};
	const itemKb = Math.round(JSON.stringify(item).length / 1024);
	const secrets = [
		'sk-live-0123456789abcdefghij',
		'ghp_16C7e42F292c6912E7710c838347Ae178B4a',
		'canary-5e1f0c9a7b',
	];
	const itemRedactor = createRedactor({ secrets });
	await measure(`redaction of a ${itemKb} KB item, 3 secrets in every form`, 1000, async () => {
		for (let i = 0; i < 1000; i++) itemRedactor.values(item);
	});
	await measure(`redaction of a ${itemKb} KB item, no secrets`, 1000, async () => {
		const none = createRedactor({ secrets: [] });
		for (let i = 0; i < 1000; i++) none.values(item);
	});
	const tenMb = 'lorem ipsum dolor sit amet '.repeat(400_000);
	await measure('redaction of 10 MB of text, 3 secrets in every form', 5, async () => {
		for (let i = 0; i < 5; i++) itemRedactor.values(tenMb);
	});

	// A model request carries every tool each round: translating 26 real tool schemas (the GitHub
	// MCP server's) and a short history into each vendor's request body.
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
