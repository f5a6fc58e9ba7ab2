// The package's nodes in n8n-core's real engine, side by side with their floors: the raw MCP SDK
// on one open connection, the openai SDK, the engine alone; and n8n-nodes-mcp 0.1.37, the peer.
// Then the heap and RSS over 10,000 executions and the execution data of the tool loop.
// Workflows run through the tests' engine (test/support/engine.ts) without its item-contract check,
// which the tests make and the timed loops leave out. The model is the tests' local stand-in for
// the Chat Completions API (test/support/chatCompletionsStandIn.ts), never a real API.
// `npm run bench` compiles this file (tsconfig.bench.json, into .bench/) and runs it with
// --expose-gc; numbers vary with the machine and its load, so compare the ratios of one run.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';
import OpenAI from 'openai';
import type { ChatCompletionCreateParamsNonStreaming } from 'openai/resources/chat/completions';
import { sharedPool } from '../lib/mcp';
import { McpClient } from '../nodes/McpClient/McpClient.node';
import {
	reply,
	startChatCompletionsStandIn,
	type ChatCompletionsStandIn,
} from '../test/support/chatCompletionsStandIn';
import {
	nodeTypesFrom,
	outputOf,
	runWorkflow,
	type EngineRun,
	type RunOptions,
	type WorkflowJson,
} from '../test/support/engine';
import {
	EXECUTION_DATA_ROUNDS,
	measureBatchData,
	measureExecutionData,
	type ExecutionDataSize,
} from '../test/support/executionData';
import { chain, mcpClientNode, n8nNode, stdioCredential } from '../test/support/mcpWorkflow';
import { modelNode, modelNodeTypes, standInCredential } from '../test/support/modelWorkflow';
import { faultStdio } from '../test/support/servers';
import { median, quietEngineLog } from './stats';

const TRIALS = 5;
const PEER = 'n8n-nodes-mcp@0.1.37';
// The server gets a key in its environment, as most do: the nodes hide it wherever it could show.
const SERVER_KEY = 'sk-bench-0123456789abcdef';
const faultServer = faultStdio();
// The credential names no PATH: the node passes its own to the server.
const mcpCredentials = {
	mcpStdioServerApi: stdioCredential({ ...faultServer, env: { API_KEY: SERVER_KEY } }),
};
const packageNodeTypes = { ...nodeTypesFrom(new McpClient()), ...modelNodeTypes() };

/** Runs a workflow as the tests do, without the item-contract check (not part of what is timed). */
const run = (workflow: WorkflowJson, options: RunOptions) =>
	runWorkflow(workflow, { ...options, checkOutput: () => {} });

/** The items on one output of a node's last run; throws with the run's error when it failed. */
function outputOfSuccess(result: EngineRun, nodeName: string, outputIndex = 0) {
	if (result.status !== 'success')
		throw new Error(`The workflow failed at ${nodeName}: ${result.error?.message}`);
	return outputOf(result, nodeName, outputIndex);
}

type Work = (count: number) => Promise<number>;

const now = () => performance.now();

/** Runs `count` times, one after another; ms each. */
async function msEach(count: number, work: (index: number) => Promise<unknown>) {
	const started = now();
	for (let i = 0; i < count; i++) await work(i);
	return (now() - started) / count;
}

/**
 * The median over TRIALS of ms each for every contender, their trials interleaved so that a
 * change in the machine's load falls on all of them alike.
 */
async function sideBySide<Name extends string>(
	count: number,
	contenders: Record<Name, Work>,
): Promise<Record<Name, number>> {
	const names = Object.keys(contenders) as Name[];
	const trials = new Map<Name, number[]>(names.map((name) => [name, []]));
	for (let trial = 0; trial < TRIALS; trial++)
		for (const name of names) trials.get(name)!.push(await contenders[name](count));
	return Object.fromEntries(names.map((name) => [name, median(trials.get(name)!)])) as Record<
		Name,
		number
	>;
}

/** Runs `work` on each of `items`, `concurrency` at a time. */
async function inFlight<T>(items: T[], concurrency: number, work: (item: T) => Promise<unknown>) {
	let next = 0;
	const worker = async () => {
		while (next < items.length) await work(items[next++]);
	};
	await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

async function rawMcpClient() {
	const client = new Client({ name: 'bench', version: '1.0.0' });
	await client.connect(
		new StdioClientTransport({
			command: faultServer.command,
			args: faultServer.args,
			env: { ...faultServer.env, API_KEY: SERVER_KEY },
		}),
	);
	return client;
}

const BARE_CALL_TYPE = 'bench.bareCall';

/**
 * A node with nothing but the raw SDK call, one per item (its `toolCalls[0]`, else a fixed echo),
 * `concurrency` at a time: what n8n's engine costs around any tool call, with no check, trace or
 * redaction. The engine sees it as it sees the MCP Client (the same parameters, whose defaults and
 * display rules it works out for every execution, and the same credential, which it decrypts when
 * read), and it reads them as any node must. The floors are measured outside the engine;
 * this one is what an n8n node with these parameters can reach at best. Without `call`, it makes no
 * call at all: what the engine alone costs for a node with these parameters and credential.
 */
function bareCallNode(client: Client, concurrency: number, call = true): INodeType {
	const { description } = new McpClient();
	return {
		description: {
			...description,
			displayName: 'Bare Call',
			name: 'bareCall',
			description: 'The raw MCP SDK call, nothing else',
			defaults: { name: 'Bare Call' },
		},
		async execute(this: IExecuteFunctions) {
			this.getNodeParameter('operation', 0);
			await this.getCredentials('mcpStdioServerApi');
			const items = this.getInputData();
			if (!call) return [items];
			const answered: INodeExecutionData[] = new Array(items.length);
			await inFlight([...items.keys()], concurrency, async (index) => {
				const [call] = (items[index].json.toolCalls as PendingCall[] | undefined) ?? [];
				const result = await client.callTool(
					call ? { name: call.name, arguments: call.arguments } : ECHO_HELLO,
				);
				answered[index] = { json: { ...items[index].json, result }, pairedItem: { item: index } };
			});
			return [answered];
		},
	};
}

interface PendingCall {
	name: string;
	arguments: Record<string, unknown>;
}

const ECHO_HELLO = { name: 'echo', arguments: { text: 'hello' } };

/** The bare node in place of an MCP Client node with these parameters. */
const bareCallWorkflow = (parameters: IDataObject) =>
	chain(mcpClientNode('Bare Call', parameters, { type: BARE_CALL_TYPE }));

interface Row {
	what: string;
	ours: number;
	floorName: string;
	floor?: number;
	/** The bound on ours/floor; a row without one shows the ratio only. */
	target?: number;
}

/** 1000 items, each with one pending echo call, through Execute Tool Calls vs the raw SDK. */
async function executeToolCallsRows(client: Client): Promise<Row[]> {
	const pending: INodeExecutionData[] = Array.from({ length: 1000 }, (_, index) => ({
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
	const listed = outputOfSuccess(
		await run(chain(mcpClientNode('List Tools', { operation: 'listTools' })), {
			nodeTypes: packageNodeTypes,
			credentials: mcpCredentials,
			inputItems: pending,
		}),
		'List Tools',
	).map(({ json }) => ({ json }));
	const rows: Row[] = [];
	for (const [concurrency, target] of [
		[8, 1.5],
		[64, 2.5],
	]) {
		const parameters = { operation: 'executeToolCalls', options: { concurrency } };
		const execute = chain(mcpClientNode('Execute', parameters));
		// Timed as n8n times an execution, from the run's startedAt to its stoppedAt: before the run,
		// the tests' engine copies the pinned input items (about 0.1 s for these 10 MB), which a
		// workflow whose items come from the node before it does not do.
		const ours = async () => {
			const result = await run(execute, {
				nodeTypes: packageNodeTypes,
				credentials: mcpCredentials,
				inputItems: listed,
			});
			const { startedAt, stoppedAt } = result.raw;
			const ms = (stoppedAt ?? new Date()).getTime() - startedAt.getTime();
			const answered = outputOfSuccess(result, 'Execute');
			const last = answered[999]?.json.messages as Array<{ content?: unknown }> | undefined;
			if (answered.length !== 1000 || last?.at(-1)?.content !== 'item 999')
				throw new Error('Execute Tool Calls did not answer every item');
			return ms;
		};
		const raw = () =>
			msEach(1, () =>
				inFlight(pending, concurrency, ({ json }) =>
					client.callTool({
						name: 'echo',
						arguments: (json.toolCalls as PendingCall[])[0].arguments,
					}),
				),
			);
		const bareTypes = { [BARE_CALL_TYPE]: bareCallNode(client, concurrency) };
		const bare = async () => {
			const result = await run(bareCallWorkflow(parameters), {
				nodeTypes: bareTypes,
				credentials: mcpCredentials,
				inputItems: listed,
			});
			if (outputOfSuccess(result, 'Bare Call').length !== 1000)
				throw new Error('The bare node did not answer every item');
			return result.raw.stoppedAt!.getTime() - result.raw.startedAt.getTime();
		};
		await ours(); // the server starts, the schemas compile
		const ms = await sideBySide(1, { ours, raw, bare });
		const what = `Execute Tool Calls, 1000 items × 1 call, ${concurrency} in flight`;
		rows.push(
			{
				what,
				ours: ms.ours,
				floorName: `raw MCP SDK, one connection, ${concurrency} in flight`,
				floor: ms.raw,
				target,
			},
			{ what, ours: ms.ours, floorName: 'a bare node making the same SDK calls', floor: ms.bare },
		);
	}
	return rows;
}

interface Peer {
	folder: string;
	node?: INodeType;
	why?: string;
}

/** n8n-nodes-mcp, installed into a temporary folder; its node, or why it cannot load. */
async function installPeer(): Promise<Peer> {
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
		const { McpClient: PeerNode } = (await import(file)) as { McpClient: new () => INodeType };
		return { node: new PeerNode(), folder };
	} catch (error) {
		const { stderr, message } = error as { stderr?: Buffer; message: string };
		const why = String(stderr ?? message)
			.trim()
			.split('\n')
			.at(-1)!;
		return { why: why.slice(0, 120), folder };
	}
}

/**
 * Manual Trigger → Call Tool (echo), executions after the first, and its floor (when `measure`);
 * the peer (when installed). Returns the rows and one execution of the workflow.
 */
async function oneCallRows(client: Client, peer: Peer | undefined, measure: boolean) {
	const parameters = {
		operation: 'callTool',
		tool: { __rl: true, mode: 'name', value: 'echo' },
		argumentsSource: 'json',
		jsonArguments: '{"text":"hello"}',
	};
	const callTool = chain(mcpClientNode('Call Tool', parameters));
	const ours = async () => {
		const result = await run(callTool, {
			nodeTypes: packageNodeTypes,
			credentials: mcpCredentials,
		});
		const [item] = outputOfSuccess(result, 'Call Tool');
		if (item?.json.status !== 'ok' || item.json.result !== 'hello')
			throw new Error(`Call Tool answered ${JSON.stringify(item?.json).slice(0, 200)}`);
	};
	const engineAlone = () => run(chain(n8nNode('NoOp', 'noOp')), { nodeTypes: {} });
	const rawCall = () => client.callTool(ECHO_HELLO);
	const bareRun = (call: boolean) => {
		const nodeTypes = { [BARE_CALL_TYPE]: bareCallNode(client, 1, call) };
		return async () => {
			const [item] = outputOfSuccess(
				await run(bareCallWorkflow(parameters), { nodeTypes, credentials: mcpCredentials }),
				'Bare Call',
			);
			if (call && item?.json.result === undefined) throw new Error('The bare node gave no result');
		};
	};
	const bare = bareRun(true);
	const bareWithoutCall = bareRun(false);
	await ours(); // the first execution starts the server
	const rows: Row[] = [];
	if (!measure && !peer) return { rows, ours };
	for (let i = 0; i < 100; i++)
		await Promise.all([ours(), engineAlone(), rawCall(), bare(), bareWithoutCall()]);
	const ms = await sideBySide(300, {
		ours: (count) => msEach(count, ours),
		engine: (count) => msEach(count, engineAlone),
		raw: (count) => msEach(count, rawCall),
		bare: (count) => msEach(count, bare),
		bareWithoutCall: (count) => msEach(count, bareWithoutCall),
	});
	const what = 'One-call workflow (Call Tool), per execution';
	if (measure)
		rows.push(
			{
				what,
				ours: ms.ours,
				floorName: `engine alone ${ms.engine.toFixed(2)} + raw SDK call ${ms.raw.toFixed(2)}`,
				floor: ms.engine + ms.raw,
				target: 2,
			},
			{
				what,
				ours: ms.ours,
				floorName: `the bare node without its call ${ms.bareWithoutCall.toFixed(2)} + raw SDK call ${ms.raw.toFixed(2)}`,
				floor: ms.bareWithoutCall + ms.raw,
			},
			{ what, ours: ms.ours, floorName: 'a bare node making the same SDK call', floor: ms.bare },
		);
	if (!peer) return { rows, ours };
	if (!peer.node) {
		rows.push({
			what: 'One-call workflow, per execution, vs the peer',
			ours: ms.ours,
			floorName: `${PEER}: could not load (${peer.why})`,
		});
		return { rows, ours };
	}
	const peerWorkflow = chain({
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
	});
	const peerOnce = async () => {
		const result = await run(peerWorkflow, {
			nodeTypes: { 'n8n-nodes-mcp.mcpClient': peer.node! },
			credentials: {
				peer: {
					command: faultServer.command,
					args: faultServer.args.join(' '),
					environments: `API_KEY=${SERVER_KEY}`,
				},
			},
		});
		const [item] = outputOfSuccess(result, 'Peer');
		const answer = item?.json.result as { content?: Array<{ text?: string }> } | undefined;
		if (answer?.content?.[0]?.text !== 'hello')
			throw new Error(`${PEER} answered ${JSON.stringify(item?.json).slice(0, 200)}`);
	};
	await peerOnce();
	const peerTimes: number[] = [];
	for (let i = 0; i < 3; i++) peerTimes.push(await msEach(1, peerOnce));
	rows.push({
		what: 'One-call workflow, per execution, vs the peer',
		ours: ms.ours,
		floorName: `${PEER} (starts the server each time)`,
		floor: median(peerTimes),
		target: 1 / 190,
	});
	return { rows, ours };
}

/** Manual Trigger → Tool Calling Model (no tools) vs the openai SDK sending the same request. */
async function modelTurnRow(api: ChatCompletionsStandIn): Promise<Row> {
	const model = chain(
		modelNode('Model', {
			model: { __rl: true, mode: 'id', value: 'gpt-4.1-mini' },
			userMessage: 'Say hello.',
		}),
	);
	const credentials = standInCredential(api);
	const ours = async () => {
		api.script(reply.text('Hello!'));
		const result = await run(model, { nodeTypes: packageNodeTypes, credentials });
		const [answer] = outputOfSuccess(result, 'Model', 1);
		if (answer?.json.answer !== 'Hello!') throw new Error('The model turn gave no answer');
	};
	await ours();
	const body = api.requests.at(-1)!.body as ChatCompletionCreateParamsNonStreaming;
	const openai = new OpenAI({
		baseURL: api.baseURL,
		apiKey: credentials.openAiCompatibleApi.apiKey,
	});
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

/** Heap and RSS after a full collection, before and after `executions` runs of `work`. */
async function memoryOver(executions: number, work: () => Promise<void>) {
	const { gc } = globalThis;
	if (!gc) return 'run with --expose-gc to measure the heap after a collection';
	const settle = () => {
		gc();
		gc();
		return process.memoryUsage();
	};
	const before = settle();
	for (let i = 0; i < executions; i++) await work();
	const after = settle();
	const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MB`;
	const change = (from: number, to: number) => `${to >= from ? '+' : ''}${mb(to - from)}`;
	return [
		`Memory over ${executions.toLocaleString('en')} executions of the one-call workflow (after a full GC)`,
		`heap used  ${mb(before.heapUsed)} -> ${mb(after.heapUsed)} (${change(before.heapUsed, after.heapUsed)})`,
		`RSS        ${mb(before.rss)} -> ${mb(after.rss)} (${change(before.rss, after.rss)})`,
	].join('\n');
}

const ms = (value: number) => (value >= 100 ? `${value.toFixed(0)} ms` : `${value.toFixed(2)} ms`);

function formatRatios(rows: Row[]) {
	const header = ['', 'ours', 'floor', '', 'ours/floor', 'target', 'holds'];
	const lines = rows.map((row) => {
		if (row.floor === undefined) return [row.what, ms(row.ours), '', row.floorName, '', '', ''];
		const ratio = row.ours / row.floor;
		const inverse = row.target !== undefined && row.target < 1;
		const shown = inverse ? `1/${(1 / ratio).toFixed(0)}` : `${ratio.toFixed(2)}×`;
		if (row.target === undefined)
			return [row.what, ms(row.ours), ms(row.floor), row.floorName, shown, '', ''];
		return [
			row.what,
			ms(row.ours),
			ms(row.floor),
			row.floorName,
			shown,
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

const size = (value: number) =>
	value >= 1024 ? `${(value / 1024).toFixed(2)} MB` : `${value.toFixed(0)} KB`;

function formatExecutionData(rows: ExecutionDataSize[], payloads: string) {
	const lines = [
		`Execution data of the tool loop (server-everything, all tools; Trace Payloads: ${payloads})`,
		'rounds  final item  stored by n8n (flatted)  as plain JSON',
	];
	for (const row of rows)
		lines.push(
			`${String(row.rounds).padStart(6)}  ${size(row.item).padStart(10)}  ${size(row.flatted).padStart(23)}  ${size(row.json).padStart(12)}`,
		);
	return lines.join('\n');
}

// Parts to run, all by default:
// `node --expose-gc .bench/bench/inEngine.js calls oneCall peer model memory executionData`.
const PARTS = ['calls', 'oneCall', 'peer', 'model', 'memory', 'executionData'];

async function main() {
	const asked = process.argv.slice(2);
	const unknown = asked.filter((part) => !PARTS.includes(part));
	if (unknown.length > 0)
		throw new Error(`Unknown parts ${unknown.join(', ')}: choose from ${PARTS.join(', ')}`);
	const runs = (part: string) => asked.length === 0 || asked.includes(part);

	// n8n's default level, to a file, set before the engine's first run reads it: at 'info' n8n's
	// logger makes debug lines no-ops, as in a default n8n ('silent' still builds each debug
	// line's call site before dropping it).
	const removeLog = quietEngineLog();

	const api = await startChatCompletionsStandIn();
	const client = await rawMcpClient();
	const peer = runs('peer') ? await installPeer() : undefined;
	try {
		const rows = runs('calls') ? await executeToolCallsRows(client) : [];
		const oneCall = await oneCallRows(client, peer, runs('oneCall'));
		rows.push(...oneCall.rows);
		if (runs('model')) rows.push(await modelTurnRow(api));
		if (rows.length > 0)
			console.log(
				`\nIn n8n-core's engine, ${availableParallelism()} cores (median of ${TRIALS} interleaved trials; the MCP server is test/servers/fault-server.mjs over stdio)\n${formatRatios(rows)}\n`,
			);
		if (runs('memory')) console.log(`${await memoryOver(10_000, oneCall.ours)}\n`);
		if (runs('executionData')) {
			const sizes: ExecutionDataSize[] = [];
			for (const rounds of EXECUTION_DATA_ROUNDS)
				sizes.push(await measureExecutionData(api, rounds, 'full'));
			console.log(`${formatExecutionData(sizes, 'full')}\n`);
			const batch = await measureBatchData(1000);
			console.log(
				`Execution data of a batch: ${batch.items} items, each with one call, through List Tools (all 13 tools of server-everything) and Execute Tool Calls: ${size(batch.flatted)} stored by n8n, ${size(batch.flatted / batch.items)} an item\n`,
			);
		}
	} finally {
		await client.close();
		await sharedPool.closeAll();
		await api.close();
		if (peer) rmSync(peer.folder, { recursive: true, force: true });
		removeLog();
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
