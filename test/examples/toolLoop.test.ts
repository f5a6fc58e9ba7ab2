import { reply } from '../support/chatCompletionsStandIn';
import { nodeTypesFrom, outputOf, runsOf, runWorkflow } from '../support/engine';
import { loadExample } from '../support/examples';
import {
	expectConversationItem,
	stdioCredential,
	stopServersAfterAll,
} from '../support/mcpWorkflow';
import { MODEL_TYPE, modelNodeTypes } from '../support/modelWorkflow';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import { everythingStdio } from '../support/servers';
import { standInForEachTest } from '../support/standInPerTest';
import { TOOL_LOOP_ORDER } from '../support/toolLoopOrder';
import { readTrace } from '../../lib/trace/read';

const api = standInForEachTest();
stopServersAfterAll();

const nodeTypes = () => ({ ...modelNodeTypes(), ...nodeTypesFrom(new McpClient()) });
const credentials = () => ({
	mcpEverything: stdioCredential(everythingStdio()),
	openAi: { baseUrl: api.baseURL, apiKey: 'sk-loop-test-key', organization: '', headers: {} },
});

/** Three model turns: add with one tool, echo the sum with another, then answer. */
function scriptThreeRounds() {
	api.script(
		reply.toolCalls([{ id: 'call_sum', name: 'get-sum', arguments: '{"a":17,"b":25}' }]),
		reply.toolCalls([{ id: 'call_echo', name: 'echo', arguments: '{"message":"42"}' }], {
			content: 'Now I echo it.',
		}),
		reply.text('17 + 25 = 42, and the echo said: 42.'),
	);
}

const system = {
	role: 'system',
	content: 'You are precise. Use the tools for arithmetic and echo results back when asked.',
};
const user = { role: 'user', content: 'What is 17 + 25? Then echo the result back to me.' };
const sumCall = {
	role: 'assistant',
	content: null,
	tool_calls: [
		{
			id: 'call_sum',
			type: 'function',
			function: { name: 'get-sum', arguments: '{"a":17,"b":25}' },
		},
	],
};
const sumResult = {
	role: 'tool',
	tool_call_id: 'call_sum',
	name: 'get-sum',
	content: 'The sum of 17 and 25 is 42.',
};
const echoCall = {
	role: 'assistant',
	content: 'Now I echo it.',
	tool_calls: [
		{
			id: 'call_echo',
			type: 'function',
			function: { name: 'echo', arguments: '{"message":"42"}' },
		},
	],
};
const echoResult = { role: 'tool', tool_call_id: 'call_echo', name: 'echo', content: 'Echo: 42' };
const finalAnswer = { role: 'assistant', content: '17 + 25 = 42, and the echo said: 42.' };

async function runLoop(stream: boolean) {
	scriptThreeRounds();
	const workflow = loadExample('mcp-tool-loop.json', {
		Model: { options: { maxRounds: 6, stream } },
	});
	expect(workflow.nodes[2].type).toBe(MODEL_TYPE);
	return runWorkflow(workflow, { nodeTypes: nodeTypes(), credentials: credentials() });
}

describe('example: the manual MCP tool loop', () => {
	it('reaches a final answer in three rounds through real MCP calls, with the whole history right at every round', async () => {
		const run = await runLoop(false);
		expect(run.status).toBe('success');
		expect(run.order).toEqual(TOOL_LOOP_ORDER);

		const models = runsOf(run, 'Model');
		const executes = runsOf(run, 'Execute Tool Calls');
		const messagesOf = (items: any[]) => items.map((item) => item.json.messages);
		// Round 1: the model asks for get-sum; the server answers.
		expect(models[0].outputs[1]).toEqual([]);
		expect(messagesOf(models[0].outputs[0])).toEqual([[system, user, sumCall]]);
		expect(models[0].outputs[0][0].json.toolCalls).toEqual([
			{
				id: 'call_sum',
				name: 'get-sum',
				arguments: { a: 17, b: 25 },
				rawArguments: '{"a":17,"b":25}',
			},
		]);
		expect(messagesOf(executes[0].outputs[0])).toEqual([[system, user, sumCall, sumResult]]);
		// Round 2: echo.
		expect(messagesOf(models[1].outputs[0])).toEqual([
			[system, user, sumCall, sumResult, echoCall],
		]);
		expect(messagesOf(executes[1].outputs[0])).toEqual([
			[system, user, sumCall, sumResult, echoCall, echoResult],
		]);
		// Round 3: the answer leaves by Final Answer.
		expect(models[2].outputs[0]).toEqual([]);
		const final = models[2].outputs[1][0].json as any;
		// The trace as show, diff and replay read it: compact requests rebuilt whole.
		const trace = readTrace(final) as any[];
		expect(final.messages).toEqual([
			system,
			user,
			sumCall,
			sumResult,
			echoCall,
			echoResult,
			finalAnswer,
		]);
		expect(final).toMatchObject({ answer: finalAnswer.content, rounds: 3, toolCalls: [] });
		for (const item of [
			...models.flatMap((m) => m.outputs.flat()),
			...executes.flatMap((e) => e.outputs.flat()),
		]) {
			expectConversationItem(item.json);
		}
		expect(outputOf(run, 'Answer')[0].json).toEqual({
			answer: finalAnswer.content,
			rounds: 3,
			stopReason: '',
		});

		// What the model saw each round is the history so far, in the vendor's format.
		expect(api.requests.map((request) => request.body!.messages.length)).toEqual([2, 4, 6]);
		expect(api.requests[2].body!.messages[5]).toEqual({
			role: 'tool',
			tool_call_id: 'call_echo',
			content: 'Echo: 42',
		});
		expect(api.requests[0].body!.tools!.map((tool: any) => tool.function.name)).toEqual([
			'echo',
			'get-sum',
			'get-tiny-image',
		]);

		// The trace tells the story (docs/trace.md): the listing in round 0, then each round's model turn
		// and the steps of the calls it asked for, every step once, in order.
		const execute = 'Execute Tool Calls';
		const callSteps = (round: number) => [
			['arguments.validation', round, execute],
			['tools.call.request', round, execute],
			['tools.call.result', round, execute],
		];
		expect(trace.map((entry: any) => [entry.step, entry.round, entry.node])).toEqual([
			['tools.list', 0, 'List Tools'],
			['model.request', 1, 'Model'],
			['model.response', 1, 'Model'],
			...callSteps(1),
			['model.request', 2, 'Model'],
			['model.response', 2, 'Model'],
			...callSteps(2),
			['model.request', 3, 'Model'],
			['model.response', 3, 'Model'],
		]);
		const started = trace.map((entry: any) => Date.parse(entry.at));
		expect(started.every((at: number) => Number.isFinite(at))).toBe(true);
		expect(started).toEqual([...started].sort((a, b) => a - b));
		// Every step carries its JSON, measured: nothing left out at the default settings.
		for (const entry of trace) {
			expect({
				step: entry.step,
				round: entry.round,
				omitted: entry.payloadOmitted,
				hasPayload: entry.payload !== undefined,
			}).toEqual({
				step: entry.step,
				round: entry.round,
				omitted: undefined,
				hasPayload: true,
			});
			expect({ step: entry.step, bytes: entry.bytes }).toEqual({
				step: entry.step,
				bytes: Buffer.byteLength(JSON.stringify(entry.payload)),
			});
		}
		const [listed, ...steps] = trace;
		expect(listed.payload.map((tool: any) => tool.name)).toEqual([
			'echo',
			'get-sum',
			'get-tiny-image',
		]);
		const byRound = (step: string) => steps.filter((entry: any) => entry.step === step);
		expect(byRound('model.request').map((entry: any) => entry.payload)).toEqual(
			api.requests.map((request) => request.body),
		);
		expect(byRound('model.request').map((entry: any) => entry.headers.authorization)).toEqual([
			'[redacted]',
			'[redacted]',
			'[redacted]',
		]);
		expect(byRound('model.response').map((entry: any) => entry.toolCalls)).toEqual([
			[{ id: 'call_sum', name: 'get-sum' }],
			[{ id: 'call_echo', name: 'echo' }],
			[],
		]);
		expect(
			byRound('model.response').map((entry: any) => entry.payload.choices[0].message.content),
		).toEqual([null, echoCall.content, finalAnswer.content]);
		expect(
			byRound('arguments.validation').map((entry: any) => [
				entry.callId,
				entry.tool,
				entry.status,
				entry.payload,
			]),
		).toEqual([
			['call_sum', 'get-sum', 'valid', { a: 17, b: 25 }],
			['call_echo', 'echo', 'valid', { message: '42' }],
		]);
		expect(
			byRound('tools.call.request').map((entry: any) => [
				entry.callId,
				entry.server,
				entry.payload,
			]),
		).toEqual([
			['call_sum', 'everything', { name: 'get-sum', arguments: { a: 17, b: 25 } }],
			['call_echo', 'everything', { name: 'echo', arguments: { message: '42' } }],
		]);
		expect(
			byRound('tools.call.result').map((entry: any) => [
				entry.callId,
				entry.status,
				entry.payload.content,
			]),
		).toEqual([
			['call_sum', 'ok', [{ type: 'text', text: sumResult.content }]],
			['call_echo', 'ok', [{ type: 'text', text: echoResult.content }]],
		]);
		expect(JSON.stringify(final)).not.toContain('sk-loop-test-key');
		// As stored, rounds 2 and 3 keep of their request only the two messages new since the last one.
		const sentMessages = (index: number) => (api.requests[index].body as any).messages;
		expect(sentMessages(2)).toHaveLength(6);
		const stored = final.trace.filter((entry: any) => entry.step === 'model.request');
		expect(stored.map((entry: any) => entry.compacted)).toEqual([
			undefined,
			['messages', 'tools'],
			['messages', 'tools'],
		]);
		expect(stored.slice(1).map((entry: any) => entry.payload.messages)).toEqual([
			{ sameAsRound: 1, first: 2, then: sentMessages(1).slice(2) },
			{ sameAsRound: 2, first: 4, then: sentMessages(2).slice(4) },
		]);
		expect(stored[2].payload.tools).toEqual({ sameAsRound: 2 });
	});

	it('gives the same items streamed and not streamed', async () => {
		const plain = await runLoop(false);
		const streamed = await runLoop(true);
		const withoutTrace = (run: typeof plain) =>
			runsOf(run, 'Model').map((model) =>
				model.outputs.map((items) => items.map(({ json: { trace, ...rest } }) => rest)),
			);
		expect(withoutTrace(streamed)).toEqual(withoutTrace(plain));
		expect(api.requests.filter((request) => request.body!.stream === true)).toHaveLength(3);
		// The streamed trace has the same steps; each response says how many chunks it was assembled from.
		const finalTrace = (run: typeof plain) => (outputOf(run, 'Model', 1)[0].json as any).trace;
		const shape = (run: typeof plain) =>
			finalTrace(run).map((entry: any) => [entry.step, entry.round]);
		expect(shape(streamed)).toEqual(shape(plain));
		const responses = (run: typeof plain) =>
			finalTrace(run).filter((entry: any) => entry.step === 'model.response');
		expect(responses(streamed).map((entry: any) => entry.streamedChunks)).toEqual([
			expect.any(Number),
			expect.any(Number),
			expect.any(Number),
		]);
		expect(
			responses(streamed).every(
				(entry: any) => entry.streamedChunks > 0 && entry.payload !== undefined,
			),
		).toBe(true);
		expect(responses(plain).map((entry: any) => entry.streamedChunks)).toEqual([
			undefined,
			undefined,
			undefined,
		]);
	});
});
