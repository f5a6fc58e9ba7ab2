/**
 * What a long conversation costs n8n's storage, measured once for the probe
 * (test/probe/executionData.probe.ts) and the benchmark (bench/inEngine.ts): the tool loop of
 * examples/mcp-tool-loop.json in n8n-core's engine (Manual Trigger → List Tools of server-everything
 * over stdio, all its tools → Tool Calling Model → Execute Tool Calls, looping back), the model
 * being the local stand-in for the Chat Completions API, scripted to ask for one `echo` call a round
 * and then answer.
 *
 * n8n's ExecutionRepository writes `stringify(data)` from `flatted` (the run's IRunExecutionData),
 * which writes an object reached twice once; JSON.stringify of the same data, which writes it every
 * time, is measured beside it.
 */
import { stringify } from 'flatted';
import type { TracePolicy } from '../../lib/trace/entries';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import { reply, type ChatCompletionsStandIn } from './chatCompletionsStandIn';
import { nodeTypesFrom, outputOf, runWorkflow } from './engine';
import { loadExample } from './examples';
import { mcpClientNode, pendingCall, runMcpChain, stdioCredential } from './mcpWorkflow';
import { modelNodeTypes } from './modelWorkflow';
import { everythingStdio } from './servers';

/** The numbers of model rounds the probe and the benchmark measure. */
export const EXECUTION_DATA_ROUNDS = [2, 5, 10, 20];

export interface ExecutionDataSize {
	rounds: number;
	/** The final item's JSON, in KB. */
	item: number;
	/** The execution data as n8n stores it (flatted), in KB. */
	flatted: number;
	/** The same data as plain JSON, in KB. */
	json: number;
}

const kb = (text: string) => Buffer.byteLength(text) / 1024;

/** server-everything's credential with a key in its environment, which the nodes must hide. */
function everythingWithKey(key: string) {
	const server = everythingStdio();
	return stdioCredential({ ...server, env: { ...server.env, API_KEY: key } });
}

/**
 * Runs the loop for `rounds` model rounds (rounds - 1 echo calls, then the answer) with the given
 * Trace Payloads on every node ('full', the node default, is the compact trace). The server gets a
 * key in its environment, as most servers have, so the nodes hide it wherever it could show. Throws
 * when the run fails or ends after another number of rounds.
 */
export async function measureExecutionData(
	api: ChatCompletionsStandIn,
	rounds: number,
	payloads: TracePolicy['payloads'] = 'full',
): Promise<ExecutionDataSize> {
	api.script(
		...Array.from({ length: rounds - 1 }, (_, index) =>
			reply.toolCalls([
				{ id: `call_${index}`, name: 'echo', arguments: `{"message":"round ${index + 1}"}` },
			]),
		),
		reply.text('Done.'),
	);
	const traceOptions = { payloads };
	const workflow = loadExample('mcp-tool-loop.json', {
		'List Tools': { toolFilter: 'all', includeTools: [], traceOptions },
		Model: { options: { maxRounds: 30 }, traceOptions },
		'Execute Tool Calls': { traceOptions },
	});
	const run = await runWorkflow(workflow, {
		nodeTypes: { ...modelNodeTypes(), ...nodeTypesFrom(new McpClient()) },
		credentials: {
			mcpEverything: everythingWithKey('sk-loop-0123456789abcdef'),
			openAi: { baseUrl: api.baseURL, apiKey: 'sk-loop-key', organization: '', headers: {} },
		},
	});
	if (run.status !== 'success')
		throw new Error(`The tool loop ended with ${run.status}: ${run.error?.message ?? ''}`);
	const [final] = outputOf(run, 'Model', 1);
	if (final?.json.rounds !== rounds)
		throw new Error(`The loop ended after ${final?.json.rounds} rounds, not ${rounds}`);
	return {
		rounds,
		item: kb(JSON.stringify(final.json)),
		flatted: kb(stringify(run.raw.data)),
		json: kb(JSON.stringify(run.raw.data)),
	};
}

export interface BatchDataSize {
	items: number;
	/** The execution data as n8n stores it (flatted), in KB. */
	flatted: number;
}

/**
 * What a batch costs n8n's storage: `count` items, each with one pending `echo` call, through List
 * Tools (all 13 tools of server-everything over stdio) and Execute Tool Calls.
 */
export async function measureBatchData(count: number): Promise<BatchDataSize> {
	const run = await runMcpChain(
		[
			mcpClientNode('List Tools', { operation: 'listTools' }),
			mcpClientNode('Execute Tool Calls', { operation: 'executeToolCalls' }),
		],
		{
			credentials: { mcpStdioServerApi: everythingWithKey('sk-batch-0123456789abcdef') },
			inputItems: Array.from({ length: count }, (_, index) => ({
				json: { toolCalls: [pendingCall('echo', { message: `row ${index + 1}` })] },
			})),
		},
	);
	const answered = outputOf(run, 'Execute Tool Calls');
	if (run.status !== 'success' || answered.length !== count)
		throw new Error(`The batch ended with ${run.status}: ${run.error?.message ?? ''}`);
	return { items: count, flatted: kb(stringify(run.raw.data)) };
}
