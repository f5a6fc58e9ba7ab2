import { sharedPool } from '../../lib/mcp';
import { reply } from '../support/chatCompletionsStandIn';
import { nodeTypesFrom, outputOf, runsOf, runWorkflow } from '../support/engine';
import { loadExample } from '../support/examples';
import { expectConversationItem, stdioCredential } from '../support/mcpWorkflow';
import { MODEL_TYPE, modelNodeTypes } from '../support/modelWorkflow';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import { everythingStdio, stopAllServers } from '../support/servers';
import { standInForEachTest } from '../support/standInPerTest';

const api = standInForEachTest();
afterAll(async () => {
	await sharedPool.closeAll();
	await stopAllServers();
});

const nodeTypes = () => ({ ...modelNodeTypes(), ...nodeTypesFrom(new McpClient()) });
const credentials = () => ({
	mcpEverything: stdioCredential(everythingStdio()),
	openAi: { baseUrl: api.baseURL, apiKey: 'sk-loop-test-key', organization: '', headers: {} },
});

/** Three model turns: add with one tool, echo the sum with another, then answer. */
function scriptThreeRounds() {
	api.script(
		reply.toolCalls([{ id: 'call_sum', name: 'get-sum', arguments: '{"a":17,"b":25}' }]),
		reply.toolCalls([{ id: 'call_echo', name: 'echo', arguments: '{"message":"42"}' }], { content: 'Now I echo it.' }),
		reply.text('17 + 25 = 42, and the echo said: 42.'),
	);
}

const system = { role: 'system', content: 'You are precise. Use the tools for arithmetic and echo results back when asked.' };
const user = { role: 'user', content: 'What is 17 + 25? Then echo the result back to me.' };
const sumCall = { role: 'assistant', content: null, tool_calls: [{ id: 'call_sum', type: 'function', function: { name: 'get-sum', arguments: '{"a":17,"b":25}' } }] };
const sumResult = { role: 'tool', tool_call_id: 'call_sum', name: 'get-sum', content: 'The sum of 17 and 25 is 42.' };
const echoCall = { role: 'assistant', content: 'Now I echo it.', tool_calls: [{ id: 'call_echo', type: 'function', function: { name: 'echo', arguments: '{"message":"42"}' } }] };
const echoResult = { role: 'tool', tool_call_id: 'call_echo', name: 'echo', content: 'Echo: 42' };
const finalAnswer = { role: 'assistant', content: '17 + 25 = 42, and the echo said: 42.' };

async function runLoop(stream: boolean) {
	scriptThreeRounds();
	const workflow = loadExample('mcp-tool-loop.json', { Model: { options: { maxRounds: 6, stream } } });
	expect(workflow.nodes[2].type).toBe(MODEL_TYPE);
	return runWorkflow(workflow, { nodeTypes: nodeTypes(), credentials: credentials() });
}

describe('example: the manual MCP tool loop', () => {
	it('reaches a final answer in three rounds through real MCP calls, with the whole history right at every round', async () => {
		const run = await runLoop(false);
		expect(run.status).toBe('success');
		expect(run.order).toEqual(['Run', 'List Tools', 'Model', 'Execute Tool Calls', 'Model', 'Execute Tool Calls', 'Model', 'Answer']);

		const models = runsOf(run, 'Model');
		const executes = runsOf(run, 'Execute Tool Calls');
		const messagesOf = (items: any[]) => items.map((item) => item.json.messages);
		// Round 1: the model asks for get-sum; the server answers.
		expect(models[0].outputs[1]).toEqual([]);
		expect(messagesOf(models[0].outputs[0])).toEqual([[system, user, sumCall]]);
		expect(models[0].outputs[0][0].json.toolCalls).toEqual([{ id: 'call_sum', name: 'get-sum', arguments: { a: 17, b: 25 }, rawArguments: '{"a":17,"b":25}' }]);
		expect(messagesOf(executes[0].outputs[0])).toEqual([[system, user, sumCall, sumResult]]);
		// Round 2: echo.
		expect(messagesOf(models[1].outputs[0])).toEqual([[system, user, sumCall, sumResult, echoCall]]);
		expect(messagesOf(executes[1].outputs[0])).toEqual([[system, user, sumCall, sumResult, echoCall, echoResult]]);
		// Round 3: the answer leaves by Final Answer.
		expect(models[2].outputs[0]).toEqual([]);
		const final = models[2].outputs[1][0].json as any;
		expect(final.messages).toEqual([system, user, sumCall, sumResult, echoCall, echoResult, finalAnswer]);
		expect(final).toMatchObject({ answer: finalAnswer.content, rounds: 3, toolCalls: [] });
		for (const item of [...models.flatMap((m) => m.outputs.flat()), ...executes.flatMap((e) => e.outputs.flat())]) {
			expectConversationItem(item.json);
		}
		expect(outputOf(run, 'Answer')[0].json).toEqual({ answer: finalAnswer.content, rounds: 3, stopReason: '' });

		// What the model saw each round is the history so far, in the vendor's format.
		expect(api.requests.map((request) => request.body!.messages.length)).toEqual([2, 4, 6]);
		expect(api.requests[2].body!.messages[5]).toEqual({ role: 'tool', tool_call_id: 'call_echo', content: 'Echo: 42' });
		expect(api.requests[0].body!.tools!.map((tool: any) => tool.function.name)).toEqual(['echo', 'get-sum', 'get-tiny-image']);

		// The trace tells the story: list, then model/call pairs, each step once.
		expect(final.trace.map((entry: any) => entry.step)).toEqual([
			'mcp.listTools',
			'model.request', 'model.response', 'mcp.callTool',
			'model.request', 'model.response', 'mcp.callTool',
			'model.request', 'model.response',
		]);
		expect(JSON.stringify(final)).not.toContain('sk-loop-test-key');
	});

	it('gives the same items streamed and not streamed', async () => {
		const plain = await runLoop(false);
		const streamed = await runLoop(true);
		const withoutTrace = (run: typeof plain) =>
			runsOf(run, 'Model').map((model) => model.outputs.map((items) => items.map(({ json: { trace, ...rest } }) => rest)));
		expect(withoutTrace(streamed)).toEqual(withoutTrace(plain));
		expect(api.requests.filter((request) => request.body!.stream === true)).toHaveLength(3);
	});
});
