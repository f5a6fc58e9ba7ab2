// What a long conversation costs n8n's storage: the tool loop of examples/mcp-tool-loop.json in
// n8n-core's engine (Manual Trigger → List Tools of server-everything over stdio, all its tools →
// Tool Calling Model → Execute Tool Calls, looping back), the model being the local stand-in for the
// Chat Completions API, scripted to ask for one `echo` call a round and then answer.
//
// For each number of rounds: the final item (JSON) and the execution data as n8n stores it. n8n's
// ExecutionRepository writes `stringify(data)` from `flatted` (the run's IRunExecutionData), which
// writes an object reached twice once; JSON.stringify of the same data, which writes it every
// time, is shown beside it.
//
// Alone: `node bench/executionData.mjs [full|verbatim|metadata]...` (after `npm run build`) prints
// the table for the Trace Payloads named (default: full).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import {
	outputOf,
	packageNodeTypes,
	root,
	setUpEngine,
	sharedPool,
	stdioCredential,
	tearDownEngine,
	workflowRunner,
} from './engine.mjs';
import { startModelStandIn } from './standIn.mjs';

const require = createRequire(import.meta.url);
const { stringify } = require('flatted');

export const ROUNDS = [2, 5, 10, 20];

const kb = (text) => Buffer.byteLength(text) / 1024;

function everythingServer() {
	const manifest = require('@modelcontextprotocol/server-everything/package.json');
	const bin = typeof manifest.bin === 'string' ? manifest.bin : Object.values(manifest.bin)[0];
	const entry = path.join(
		path.dirname(require.resolve('@modelcontextprotocol/server-everything/package.json')),
		bin,
	);
	return {
		command: process.execPath,
		args: [entry, 'stdio'],
		env: { API_KEY: 'sk-bench-0123456789abcdef' },
	};
}

/** The example workflow, every node with the given Trace Payloads, List Tools offering all tools. */
function toolLoop(payloads) {
	const workflow = JSON.parse(readFileSync(path.join(root, 'examples/mcp-tool-loop.json'), 'utf8'));
	const traceOptions = { payloads };
	const overrides = {
		'List Tools': { toolFilter: 'all', includeTools: [], traceOptions },
		Model: { options: { maxRounds: 30 }, traceOptions },
		'Execute Tool Calls': { traceOptions },
	};
	for (const node of workflow.nodes)
		if (overrides[node.name]) node.parameters = { ...node.parameters, ...overrides[node.name] };
	return workflow;
}

/**
 * Runs the loop for `rounds` model rounds (rounds - 1 echo calls, then the answer) with the given
 * Trace Payloads ('full' is the node default). Needs `setUpEngine()` and a stand-in; sizes in KB.
 */
export async function measureExecutionData({ api, reply }, rounds, payloads = 'full') {
	api.script(
		...Array.from({ length: rounds - 1 }, (_, index) =>
			reply.toolCalls([
				{ id: `call_${index}`, name: 'echo', arguments: `{"message":"round ${index + 1}"}` },
			]),
		),
		reply.text('Done.'),
	);
	const run = workflowRunner(toolLoop(payloads), {
		nodeTypes: packageNodeTypes(),
		credentials: {
			mcpEverything: stdioCredential(everythingServer()),
			openAi: { baseUrl: api.baseURL, apiKey: 'sk-bench-key', organization: '', headers: {} },
		},
	});
	const result = await run();
	const [final] = outputOf(result, 'Model', 1);
	if (!final || final.json.rounds !== rounds)
		throw new Error(`The loop ended after ${final?.json.rounds} rounds, not ${rounds}`);
	return {
		rounds,
		item: kb(JSON.stringify(final.json)),
		flatted: kb(stringify(result.data)),
		json: kb(JSON.stringify(result.data)),
	};
}

/** The table's rows, one per number of rounds. */
export async function executionDataRows(standIn, payloads = 'full', rounds = ROUNDS) {
	const rows = [];
	for (const count of rounds) rows.push(await measureExecutionData(standIn, count, payloads));
	return rows;
}

const size = (value) =>
	value >= 1024 ? `${(value / 1024).toFixed(2)} MB` : `${value.toFixed(0)} KB`;

/** The rows as printed lines. */
export function formatExecutionData(rows, payloads) {
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

if (process.argv[1] === fileURLToPath(import.meta.url)) {
	const payloadsList = process.argv.length > 2 ? process.argv.slice(2) : ['full'];
	await setUpEngine();
	const standIn = await startModelStandIn();
	try {
		for (const payloads of payloadsList)
			console.log(`${formatExecutionData(await executionDataRows(standIn, payloads), payloads)}\n`);
	} finally {
		await sharedPool().closeAll();
		await standIn.api.close();
		tearDownEngine();
	}
}
