// The package's nodes in n8n-core's real engine, side by side with their floors: the raw MCP SDK
// on one open connection, the openai SDK, the engine alone; and n8n-nodes-mcp 0.1.37, the peer.
// Then the heap and RSS over 10,000 executions and the execution data of the tool loop.
// Run on the built package (`npm run bench` builds first) with --expose-gc; numbers vary with the
// machine and its load, so compare the ratios of one run. The model is the local stand-in for the
// Chat Completions API (bench/standIn.mjs), never a real API.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import OpenAI from 'openai';
import {
	chain,
	outputOf,
	packageNode,
	packageNodeTypes,
	root,
	setUpEngine,
	sharedPool,
	stdioCredential,
	tearDownEngine,
	workflowRunner,
} from './engine.mjs';
import { executionDataRows, formatExecutionData } from './executionData.mjs';
import { startModelStandIn } from './standIn.mjs';

const require = createRequire(import.meta.url);
const TRIALS = 5;
const PEER = 'n8n-nodes-mcp@0.1.37';
// The server gets a key in its environment, as most do: the nodes hide it wherever it could show.
const SERVER_KEY = 'sk-bench-0123456789abcdef';
const faultServer = {
	command: process.execPath,
	args: [path.join(root, 'test/servers/fault-server.mjs')],
	env: { PATH: process.env.PATH, API_KEY: SERVER_KEY },
};
// The credential names no PATH: the node passes its own to the server.
const mcpCredential = { mcp: stdioCredential({ ...faultServer, env: { API_KEY: SERVER_KEY } }) };
const mcpNode = (name, parameters) =>
	packageNode(
		name,
		'mcpClient',
		{ connectionType: 'stdio', ...parameters },
		{
			mcpStdioServerApi: { id: 'mcp', name: 'fault server' },
		},
	);

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const now = () => performance.now();

/** Runs `count` times, one after another; ms each. */
async function msEach(count, work) {
	const started = now();
	for (let i = 0; i < count; i++) await work(i);
	return (now() - started) / count;
}

/**
 * The median over TRIALS of ms each for every contender, their trials interleaved so that a
 * change in the machine's load falls on all of them alike.
 */
async function sideBySide(count, contenders) {
	const trials = Object.fromEntries(Object.keys(contenders).map((name) => [name, []]));
	for (let trial = 0; trial < TRIALS; trial++)
		for (const [name, work] of Object.entries(contenders)) trials[name].push(await work(count));
	return Object.fromEntries(Object.entries(trials).map(([name, values]) => [name, median(values)]));
}

/** Runs `work` on each of `items`, `concurrency` at a time. */
async function inFlight(items, concurrency, work) {
	let next = 0;
	const worker = async () => {
		while (next < items.length) await work(items[next++]);
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

async function rawMcpClient() {
	const client = new Client({ name: 'bench', version: '1.0.0' });
	await client.connect(new StdioClientTransport(faultServer));
	return client;
}

/** 1000 items, each with one pending echo call, through Execute Tool Calls vs the raw SDK. */
async function executeToolCallsRows(client) {
	const pending = Array.from({ length: 1000 }, (_, index) => ({
		json: {
			toolCalls: [
				{
					id: `call_${index}`,
					name: 'echo',
					arguments: { text: `item ${index}` },
					rawArguments: JSON.stringify({ text: `item ${index}` }),
				},
			],
		},
	}));
	// The items as List Tools leaves them (the conversation with the server's tools), made once.
	const listed = outputOf(
		await workflowRunner(chain(mcpNode('List Tools', { operation: 'listTools' })), {
			nodeTypes: packageNodeTypes(),
			credentials: mcpCredential,
		})(pending),
		'List Tools',
	).map(({ json }) => ({ json }));
	const rows = [];
	for (const [concurrency, target] of [
		[8, 1.5],
		[64, 2.5],
	]) {
		const execute = workflowRunner(
			chain(mcpNode('Execute', { operation: 'executeToolCalls', options: { concurrency } })),
			{ nodeTypes: packageNodeTypes(), credentials: mcpCredential },
		);
		const ours = async () => {
			const items = structuredClone(listed);
			const started = now();
			const run = await execute(items);
			const ms = now() - started;
			const answered = outputOf(run, 'Execute');
			if (answered.length !== 1000 || answered[999].json.messages.at(-1).content !== 'item 999')
				throw new Error('Execute Tool Calls did not answer every item');
			return ms;
		};
		const raw = () =>
			msEach(1, () =>
				inFlight(pending, concurrency, ({ json }) =>
					client.callTool({ name: 'echo', arguments: json.toolCalls[0].arguments }),
				),
			);
		await ours(); // the server starts, the schemas compile
		const { ours: oursMs, raw: rawMs } = await sideBySide(1, { ours, raw });
		rows.push({
			what: `Execute Tool Calls, 1000 items × 1 call, ${concurrency} in flight`,
			ours: oursMs,
			floorName: `raw MCP SDK, one connection, ${concurrency} in flight`,
			floor: rawMs,
			target,
		});
	}
	return rows;
}

/** n8n-nodes-mcp, installed into a temporary folder; its node class, or why it cannot load. */
function installPeer() {
	const folder = mkdtempSync(path.join(tmpdir(), 'bench-peer-'));
	try {
		execFileSync(
			'npm',
			['install', '--prefix', folder, PEER, '--ignore-scripts', '--no-audit', '--no-fund'],
			{ stdio: ['ignore', 'ignore', 'pipe'] },
		);
		const file = path.join(
			folder,
			'node_modules/n8n-nodes-mcp/dist/nodes/McpClient/McpClient.node.js',
		);
		return { node: new (require(file).McpClient)(), folder };
	} catch (error) {
		const why = String(error.stderr ?? error.message)
			.trim()
			.split('\n')
			.at(-1);
		return { why: why.slice(0, 120), folder };
	}
}

/**
 * Manual Trigger → Call Tool (echo), executions after the first, and its floor (when `measure`);
 * the peer (when installed). Returns the rows and one execution of the workflow.
 */
async function oneCallRows(client, peer, measure) {
	const callTool = workflowRunner(
		chain(
			mcpNode('Call Tool', {
				operation: 'callTool',
				tool: { __rl: true, mode: 'name', value: 'echo' },
				argumentsSource: 'json',
				jsonArguments: '{"text":"hello"}',
			}),
		),
		{ nodeTypes: packageNodeTypes(), credentials: mcpCredential },
	);
	const ours = async () => {
		const run = await callTool();
		const [item] = outputOf(run, 'Call Tool');
		if (item.json.status !== 'ok' || item.json.result !== 'hello')
			throw new Error(`Call Tool answered ${JSON.stringify(item.json).slice(0, 200)}`);
	};
	const engineAlone = workflowRunner(
		chain({
			id: 'noop',
			name: 'NoOp',
			type: 'n8n-nodes-base.noOp',
			typeVersion: 1,
			position: [0, 0],
			parameters: {},
		}),
		{ nodeTypes: {} },
	);
	const rawCall = () => client.callTool({ name: 'echo', arguments: { text: 'hello' } });
	await ours(); // the first execution starts the server
	const rows = [];
	if (!measure && !peer) return { rows, ours };
	for (let i = 0; i < 100; i++) await Promise.all([ours(), engineAlone(), rawCall()]);
	const ms = await sideBySide(300, {
		ours: (count) => msEach(count, ours),
		engine: (count) => msEach(count, engineAlone),
		raw: (count) => msEach(count, rawCall),
	});
	if (measure)
		rows.push({
			what: 'One-call workflow (Call Tool), per execution',
			ours: ms.ours,
			floorName: `engine alone ${ms.engine.toFixed(2)} + raw SDK call ${ms.raw.toFixed(2)}`,
			floor: ms.engine + ms.raw,
			target: 2,
		});
	if (!peer) return { rows, ours };
	if (peer.node) {
		const peerRun = workflowRunner(
			chain({
				id: 'peer',
				name: 'Peer',
				type: 'n8n-nodes-mcp.mcpClient',
				typeVersion: 1,
				position: [0, 0],
				parameters: {
					connectionType: 'cmd',
					operation: 'executeTool',
					toolName: 'echo',
					toolParameters: '{"text":"hello"}',
				},
				credentials: { mcpClientApi: { id: 'peer', name: 'fault server' } },
			}),
			{
				nodeTypes: { 'n8n-nodes-mcp.mcpClient': peer.node },
				credentials: {
					peer: {
						command: faultServer.command,
						args: faultServer.args.join(' '),
						environments: `API_KEY=${SERVER_KEY}`,
					},
				},
			},
		);
		const peerOnce = async () => {
			const [item] = outputOf(await peerRun(), 'Peer');
			if (item.json.result?.content?.[0]?.text !== 'hello')
				throw new Error(`${PEER} answered ${JSON.stringify(item.json).slice(0, 200)}`);
		};
		await peerOnce();
		const peerTimes = [];
		for (let i = 0; i < 3; i++) peerTimes.push(await msEach(1, peerOnce));
		rows.push({
			what: 'One-call workflow, per execution, vs the peer',
			ours: ms.ours,
			floorName: `${PEER} (starts the server each time)`,
			floor: median(peerTimes),
			target: 1 / 190,
		});
	} else {
		rows.push({
			what: 'One-call workflow, per execution, vs the peer',
			ours: ms.ours,
			floorName: `${PEER}: could not load (${peer.why})`,
		});
	}
	return { rows, ours };
}

/** Manual Trigger → Tool Calling Model (no tools) vs the openai SDK sending the same request. */
async function modelTurnRow({ api, reply }) {
	const model = workflowRunner(
		chain(
			packageNode(
				'Model',
				'toolCallingModel',
				{
					model: { __rl: true, mode: 'id', value: 'gpt-4.1-mini' },
					userMessage: 'Say hello.',
				},
				{ openAiCompatibleApi: { id: 'openai', name: 'stand-in' } },
			),
		),
		{
			nodeTypes: packageNodeTypes(),
			credentials: {
				openai: { baseUrl: api.baseURL, apiKey: 'sk-bench-key', organization: '', headers: {} },
			},
		},
	);
	const ours = async () => {
		api.script(reply.text('Hello!'));
		const [answer] = outputOf(await model(), 'Model', 1);
		if (answer?.json.answer !== 'Hello!') throw new Error('The model turn gave no answer');
	};
	await ours();
	const body = api.requests.at(-1).body;
	const openai = new OpenAI({ baseURL: api.baseURL, apiKey: 'sk-bench-key' });
	const sdk = async () => {
		api.script(reply.text('Hello!'));
		const completion = await openai.chat.completions.create(body);
		if (completion.choices[0].message.content !== 'Hello!') throw new Error('No answer');
	};
	for (let i = 0; i < 100; i++) await Promise.all([ours(), sdk()]);
	api.requests.length = 0;
	const ms = await sideBySide(200, {
		ours: (count) => msEach(count, ours),
		sdk: (count) => msEach(count, sdk),
	});
	api.requests.length = 0;
	return {
		what: 'One model turn (Manual Trigger → Tool Calling Model)',
		ours: ms.ours,
		floorName: 'openai SDK chat.completions.create, same request',
		floor: ms.sdk,
		target: 1.5,
	};
}

/** Heap and RSS after a full collection, before and after 10,000 executions of `run`. */
async function memoryOver(executions, run) {
	if (!global.gc) return 'run with --expose-gc to measure the heap after a collection';
	const settle = () => {
		global.gc();
		global.gc();
		return process.memoryUsage();
	};
	const before = settle();
	for (let i = 0; i < executions; i++) await run();
	const after = settle();
	const mb = (bytes) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
	return [
		`Memory over ${executions.toLocaleString('en')} executions of the one-call workflow (after a full GC)`,
		`heap used  ${mb(before.heapUsed)} -> ${mb(after.heapUsed)} (${after.heapUsed >= before.heapUsed ? '+' : ''}${mb(after.heapUsed - before.heapUsed)})`,
		`RSS        ${mb(before.rss)} -> ${mb(after.rss)} (${after.rss >= before.rss ? '+' : ''}${mb(after.rss - before.rss)})`,
	].join('\n');
}

const ms = (value) => (value >= 100 ? `${value.toFixed(0)} ms` : `${value.toFixed(2)} ms`);

function formatRatios(rows) {
	const header = ['', 'ours', 'floor', '', 'ours/floor', 'target', 'holds'];
	const lines = rows.map((row) => {
		if (row.floor === undefined) return [row.what, ms(row.ours), '', row.floorName, '', '', ''];
		const ratio = row.ours / row.floor;
		const inverse = row.target < 1;
		return [
			row.what,
			ms(row.ours),
			ms(row.floor),
			row.floorName,
			inverse ? `1/${(1 / ratio).toFixed(0)}` : `${ratio.toFixed(2)}×`,
			inverse ? `≤ 1/${(1 / row.target).toFixed(0)}` : `≤ ${row.target}×`,
			ratio <= row.target ? 'yes' : 'no',
		];
	});
	const widths = header.map((_, column) =>
		Math.max(...[header, ...lines].map((line) => line[column].length)),
	);
	return [header, ...lines]
		.map((line) =>
			line
				.map((cell, column) =>
					column === 0 || column === 3
						? cell.padEnd(widths[column])
						: cell.padStart(widths[column]),
				)
				.join('  ')
				.trimEnd(),
		)
		.join('\n');
}

// Parts to run, all by default: `node --expose-gc bench/inEngine.mjs calls oneCall peer model memory executionData`.
const PARTS = ['calls', 'oneCall', 'peer', 'model', 'memory', 'executionData'];
const asked = process.argv.slice(2);
const unknown = asked.filter((part) => !PARTS.includes(part));
if (unknown.length > 0)
	throw new Error(`Unknown parts ${unknown.join(', ')}: choose from ${PARTS.join(', ')}`);
const runs = (part) => asked.length === 0 || asked.includes(part);

await setUpEngine();
const standIn = await startModelStandIn();
const client = await rawMcpClient();
const peer = runs('peer') ? installPeer() : undefined;
try {
	const rows = runs('calls') ? await executeToolCallsRows(client) : [];
	const oneCall = await oneCallRows(client, peer, runs('oneCall'));
	rows.push(...oneCall.rows);
	if (runs('model')) rows.push(await modelTurnRow(standIn));
	if (rows.length > 0)
		console.log(
			`\nIn n8n-core's engine, ${availableParallelism()} cores (median of ${TRIALS} interleaved trials; the MCP server is test/servers/fault-server.mjs over stdio)\n${formatRatios(rows)}\n`,
		);
	if (runs('memory')) console.log(`${await memoryOver(10_000, oneCall.ours)}\n`);
	if (runs('executionData'))
		console.log(`${formatExecutionData(await executionDataRows(standIn), 'full')}\n`);
} finally {
	await client.close();
	await sharedPool().closeAll();
	await standIn.api.close();
	if (peer) rmSync(peer.folder, { recursive: true, force: true });
	tearDownEngine();
}
