/**
 * OpenAI models sometimes wrap parallel calls in one call of `multi_tool_use.parallel` (Chat
 * Completions) or `parallel` (Responses), with `{"tool_uses":[{"recipient_name":"functions.x",
 * "parameters":{…}}]}`. The bodies here are written by hand in the shape users reported
 * (openai-python and community reports of the wrapper); the Responses one is also in the corpus,
 * as recorded (test/fixtures/corpus/openaiResponses/parallel-tool-call-wrapper.1.response.json).
 */
import { openaiDialect } from '../../lib/dialects/openai';
import { openaiToolNames } from '../../lib/dialects/openai/names';
import { responsesDialect } from '../../lib/dialects/responses';
import { chatChunk, chatCompletion, responsesBody } from '../support/vendorBodies';

const names = openaiToolNames(['weather.get', 'echo']);
const wrapped = JSON.stringify({
	tool_uses: [
		{ recipient_name: 'functions.weather_get', parameters: { city: 'Oslo' } },
		{ recipient_name: 'functions.echo', parameters: { text: 'hi' } },
	],
});
const wrapper = (name: string, args: string) => ({
	id: 'call_w',
	type: 'function' as const,
	function: { name, arguments: args },
});
const expanded = [
	{
		id: 'call_w_0',
		name: 'weather.get',
		arguments: { city: 'Oslo' },
		rawArguments: '{"city":"Oslo"}',
	},
	{ id: 'call_w_1', name: 'echo', arguments: { text: 'hi' }, rawArguments: '{"text":"hi"}' },
];

describe('Chat Completions', () => {
	it('expands a call of multi_tool_use.parallel into the calls it wraps, names mapped back', () => {
		const body = chatCompletion(
			{ content: null, tool_calls: [wrapper('multi_tool_use.parallel', wrapped)] },
			{ finish_reason: 'tool_calls' },
		);
		const turn = openaiDialect.parseResponse(body, names);
		expect(turn.toolCalls).toEqual(expanded);
		expect(turn.message.tool_calls?.map((call) => call.function.name)).toEqual([
			'weather.get',
			'echo',
		]);
	});

	it('expands it streamed as well', () => {
		const assembler = openaiDialect.createStreamAssembler();
		const half = wrapped.length / 2;
		for (const chunk of [
			chatChunk([
				{
					index: 0,
					delta: {
						tool_calls: [
							{ index: 0, ...wrapper('multi_tool_use.parallel', wrapped.slice(0, half)) },
						],
					},
				},
			]),
			chatChunk([
				{
					index: 0,
					delta: { tool_calls: [{ index: 0, function: { arguments: wrapped.slice(half) } }] },
				},
			]),
			chatChunk([{ index: 0, delta: {}, finish_reason: 'tool_calls' }]),
		])
			assembler.push(chunk);
		expect(openaiDialect.parseResponse(assembler.result(), names).toolCalls).toEqual(expanded);
	});

	it('leaves a wrapper it cannot read as the one call it is, which no tool answers', () => {
		for (const args of [
			'{"tool_uses":[]}',
			'{"tool_uses":[{"recipient_name":"weather_get"}]}',
			'not json',
		]) {
			const body = chatCompletion({
				content: null,
				tool_calls: [wrapper('multi_tool_use.parallel', args)],
			});
			expect(openaiDialect.parseResponse(body, names).toolCalls.map((call) => call.name)).toEqual([
				'multi_tool_use.parallel',
			]);
		}
	});
});

describe('Responses', () => {
	it('expands a call of `parallel`, and sends the calls back rebuilt, each answered by its own result', () => {
		const body = responsesBody([
			{
				type: 'function_call',
				id: 'fc_1',
				call_id: 'call_w',
				name: 'parallel',
				arguments: wrapped,
				status: 'completed',
			},
		]);
		const turn = responsesDialect.parseResponse(body, names);
		expect(turn.toolCalls).toEqual(expanded);
		const { body: next } = responsesDialect.buildRequest(
			{
				tools: [],
				messages: [
					{ role: 'user', content: 'go' },
					{
						...turn.message,
						vendorTurn: { dialect: 'openaiResponses', content: body.output ?? [] },
					},
					{ role: 'tool', tool_call_id: 'call_w_0', content: '3 C' },
					{ role: 'tool', tool_call_id: 'call_w_1', content: 'hi' },
				],
			},
			{ model: 'gpt-test', toolChoice: 'auto', stream: false },
		);
		const calls = next.input.filter((item) => 'type' in item && item.type === 'function_call');
		expect(calls.map((call) => (call as { call_id: string }).call_id)).toEqual([
			'call_w_0',
			'call_w_1',
		]);
	});
});
