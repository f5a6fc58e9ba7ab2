// Chat memory's cost as a session grows: 25 messages of a person, each answered with a tool call,
// its result and the answer (100 messages in all). For each message, Chat Memory (Load) runs in
// n8n-core's engine on the session's stored rows given as input items the way n8n's Data table
// node outputs them (id, the columns, createdAt, updatedAt), the model's and the tool's part is
// appended to the conversation it gives, and Chat Memory (Save) runs on that, giving the row a
// Data table node would insert. Timed: our node's own execute (Load + Save) per message, and the
// whole execution around each; measured: the row stored per turn and the session's stored size.
// The database (n8n's Data table node over SQLite or PostgreSQL) is n8n's own and not timed here.
import type {
	INodeParameters,
	IExecuteFunctions,
	INode,
	INodeExecutionData,
	INodeType,
} from 'n8n-workflow';
import type { Message } from '../lib/conversation/types';
import { ChatMemory } from '../nodes/ChatMemory/ChatMemory.node';
import { nodeTypesFrom, outputOf, runWorkflow, type NodeTypeMap } from '../test/support/engine';
import { chain } from '../test/support/mcpWorkflow';
import { median, percentile, quietEngineLog } from './stats';

const TURNS = 25;
const SESSIONS = 5;
const TARGET_MS = 20;
const SESSION_ID = 'bench-session-7f3a';
const CHAT_MEMORY = 'n8n-nodes-tool-calling.chatMemory';

interface NodeTime {
	ms: number;
	/** The process's CPU time meanwhile (all its threads, the garbage collector's included). */
	cpuMs: number;
}

/**
 * Chat Memory with its execute timed: our node's own time, apart from the engine's around it. Its
 * CPU time too: on a loaded machine the wall time also holds the time other processes ran.
 */
function timedChatMemory(times: NodeTime[]): NodeTypeMap {
	const node = new ChatMemory();
	const timed: INodeType = {
		description: node.description,
		async execute(this: IExecuteFunctions) {
			const started = performance.now();
			const cpu = process.cpuUsage();
			try {
				return await node.execute.call(this);
			} finally {
				const used = process.cpuUsage(cpu);
				times.push({
					ms: performance.now() - started,
					cpuMs: (used.user + used.system) / 1000,
				});
			}
		},
	};
	return nodeTypesFrom(timed);
}

const memoryNode = (name: string, parameters: INodeParameters): INode => ({
	id: name,
	name,
	type: CHAT_MEMORY,
	typeVersion: 1,
	position: [0, 0],
	parameters,
});

/** What the model and a tool add to a message's conversation: a call, its result, the answer. */
function answered(turn: number): Message[] {
	const id = `call_${turn.toString(36).padStart(6, '0')}Xq9`;
	return [
		{
			role: 'assistant',
			content: null,
			tool_calls: [
				{
					id,
					type: 'function',
					function: { name: 'get-sum', arguments: JSON.stringify({ a: turn, b: 25 }) },
				},
			],
		},
		{
			role: 'tool',
			tool_call_id: id,
			name: 'get-sum',
			content: `The sum of ${turn} and 25 is ${turn + 25}. ${'Numbers add up the same way every time. '.repeat(6)}`,
		},
		{
			role: 'assistant',
			content: `${turn} + 25 = ${turn + 25}. ${'I checked it with the get-sum tool, as you asked me to. '.repeat(4)}`,
		},
	];
}

/** A row as n8n's Data table node outputs it from Get: its id, the columns, its dates. */
function tableRow(id: number, row: Record<string, unknown>) {
	const at = new Date(Date.UTC(2026, 11, 6, 9, 0, id)).toISOString();
	return { json: { id, ...row, createdAt: at, updatedAt: at } };
}

interface TurnFigures {
	loadMs: number;
	saveMs: number;
	/** CPU time of Load + Save. */
	cpuMs: number;
	loadRunMs: number;
	saveRunMs: number;
	rowBytes: number;
	storedBytes: number;
}

/** One session of TURNS messages, from no rows to all of them; figures per message. */
async function session(): Promise<TurnFigures[]> {
	const nodeTimes: NodeTime[] = [];
	const nodeTypes = timedChatMemory(nodeTimes);
	const rows: INodeExecutionData[] = [];
	const figures: TurnFigures[] = [];
	const run = async (node: INode, inputItems: INodeExecutionData[]) => {
		const started = performance.now();
		const result = await runWorkflow(chain(node), { nodeTypes, inputItems, checkOutput: () => {} });
		const runMs = performance.now() - started;
		if (result.status !== 'success')
			throw new Error(`${node.name} failed: ${result.error?.message}`);
		return { items: outputOf(result, node.name), runMs, node: nodeTimes.at(-1)! };
	};
	for (let turn = 1; turn <= TURNS; turn++) {
		const load = await run(
			memoryNode('Load Conversation', {
				operation: 'load',
				sessionId: SESSION_ID,
				message: `Message ${turn}: what is ${turn} + 25? Use the tool, please.`,
				systemMessage: 'You are a helpful assistant. Use the tools for arithmetic.',
				budget: { maxTokens: 32000 },
			}),
			// A new session: the Data table node finds no rows and, Always Output Data on, gives one empty item.
			rows.length > 0 ? rows : [{ json: {} }],
		);
		const [loaded] = load.items;
		const messages = loaded.json.messages as Message[];
		if (messages.length !== 1 + 4 * (turn - 1) + 1)
			throw new Error(`Turn ${turn}: Load gave ${messages.length} messages`);
		const conversation = { ...loaded.json, messages: [...messages, ...answered(turn)] };
		const save = await run(memoryNode('Save Conversation', { operation: 'save' }), [
			{ json: conversation },
		]);
		const [row] = save.items;
		if (row.json.turn !== turn || row.json.sessionId !== SESSION_ID)
			throw new Error(`Turn ${turn}: Save gave ${JSON.stringify(row.json).slice(0, 200)}`);
		rows.push(tableRow(turn, row.json));
		const rowBytes = Buffer.byteLength(JSON.stringify(row.json));
		figures.push({
			loadMs: load.node.ms,
			saveMs: save.node.ms,
			cpuMs: load.node.cpuMs + save.node.cpuMs,
			loadRunMs: load.runMs,
			saveRunMs: save.runMs,
			rowBytes,
			storedBytes: (figures.at(-1)?.storedBytes ?? 0) + rowBytes,
		});
	}
	return figures;
}

const fixed = (value: number) => value.toFixed(2).padStart(7);

async function main() {
	const cleanUp = quietEngineLog();
	try {
		await session(); // n8n-core and the node warm up
		const sessions: TurnFigures[][] = [];
		for (let n = 0; n < SESSIONS; n++) sessions.push(await session());
		const byTurn = (turn: number, pick: (figures: TurnFigures) => number) =>
			median(sessions.map((figures) => pick(figures[turn - 1])));
		const ours = (figures: TurnFigures) => figures.loadMs + figures.saveMs;
		const lines = [
			`Chat Memory in n8n-core's engine: a session of ${TURNS} messages, each with a tool call, its result and the answer (${TURNS * 4} messages); median of ${SESSIONS} sessions`,
			'message  messages loaded  Load ms  Save ms  ours ms  executions ms  row bytes  stored bytes',
		];
		for (const turn of [1, 5, 10, 15, 20, 25]) {
			const row = sessions[0][turn - 1];
			lines.push(
				`${String(turn).padStart(7)}  ${String(1 + 4 * (turn - 1) + 1).padStart(15)}  ${fixed(byTurn(turn, (f) => f.loadMs))}  ${fixed(byTurn(turn, (f) => f.saveMs))}  ${fixed(byTurn(turn, ours))}  ${fixed(byTurn(turn, (f) => f.loadRunMs + f.saveRunMs)).padStart(13)}  ${String(row.rowBytes).padStart(9)}  ${String(row.storedBytes).padStart(12)}`,
			);
		}
		const all = sessions.flat().map(ours);
		const [p50, p95, max] = [50, 95, 100].map((p) => percentile(all, p));
		const cpu = sessions.flat().map((figures) => figures.cpuMs);
		const [cpu50, cpu95, cpuMax] = [50, 95, 100].map((p) => percentile(cpu, p));
		const rowSizes = sessions[0].map((figures) => figures.rowBytes);
		const spread = Math.max(...rowSizes) / Math.min(...rowSizes);
		lines.push(
			`our nodes' time per message (Load + Save), all ${all.length} messages: median ${p50.toFixed(2)} ms, p95 ${p95.toFixed(2)} ms, max ${max.toFixed(2)} ms; target ≤ ${TARGET_MS} ms: ${max <= TARGET_MS ? 'holds for every message' : p95 <= TARGET_MS ? 'holds at p95' : 'missed'}`,
			`their CPU time (the process's, garbage collection included): median ${cpu50.toFixed(2)} ms, p95 ${cpu95.toFixed(2)} ms, max ${cpuMax.toFixed(2)} ms`,
			`stored per turn: ${Math.min(...rowSizes)}–${Math.max(...rowSizes)} bytes (largest/smallest ${spread.toFixed(2)}), so the session's stored size grows linearly: ${sessions[0].at(-1)!.storedBytes} bytes after ${TURNS} turns`,
		);
		console.log(lines.join('\n'));
		if (spread > 1.2) throw new Error('A turn stored more than the turns before it: not linear');
	} finally {
		cleanUp();
	}
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
