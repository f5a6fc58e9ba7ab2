import type { Conversation } from '../../lib/conversation/types';
import type { ModelEndpoint } from '../../lib/decision/endpoint';
import { AnswerFormatError, answerByTool, checkAnswer } from '../../lib/decision/structuredAnswer';
import { takeModelTurn, type DecisionContext } from '../../lib/decision/takeTurn';
import { anthropicDialect } from '../../lib/dialects/anthropic';
import type {
	ModelSettings,
	ModelTurn,
	ResponseFormat,
	ToolNameMap,
} from '../../lib/dialects/types';
import { anthropicMessage, chatCompletion } from '../support/vendorBodies';
import { answering, turnContext, TURN_SETTINGS } from '../support/turnContext';

const schema = {
	type: 'object',
	properties: { city: { type: 'string' }, degrees: { type: 'number' }, note: { type: 'string' } },
	required: ['city', 'degrees'],
};
const format: ResponseFormat = { type: 'jsonSchema', name: 'answer', schema };
const opening: Conversation = {
	messages: [{ role: 'user', content: 'Where is it warm?' }],
	tools: [],
	toolCalls: [],
	trace: [],
};

function contextWith(
	endpoint: ModelEndpoint,
	changes: Partial<DecisionContext> = {},
): DecisionContext {
	return turnContext(endpoint, {
		settings: { ...TURN_SETTINGS, responseFormat: format },
		...changes,
	});
}

const text = (content: string) => chatCompletion({ content });

describe('checkAnswer', () => {
	it('reads the JSON, a code fence taken off, and drops the nulls strict mode adds to optional properties', () => {
		expect(checkAnswer('```json\n{"city":"Rome","degrees":21,"note":null}\n```', format)).toEqual({
			ok: true,
			value: { city: 'Rome', degrees: 21 },
		});
		expect(checkAnswer('[1, "a"]', { type: 'json' })).toEqual({ ok: true, value: [1, 'a'] });
	});

	it('names what is wrong: not JSON, or each rule the answer breaks, by path', () => {
		expect(checkAnswer('Rome, 21 °C', format)).toEqual({
			ok: false,
			problem: expect.stringMatching(/^it is not JSON/),
		});
		const broken = checkAnswer('{"city":"Rome","degrees":"warm"}', format);
		expect(broken).toEqual({
			ok: false,
			problem: expect.stringContaining("'/degrees' must be number"),
		});
	});
});

describe('answerByTool', () => {
	const sameNames: ToolNameMap = { toVendor: (name) => name, fromVendor: (name) => name };
	const turn = (calls: Array<{ name: string; args: string }>): ModelTurn =>
		({
			message: {
				role: 'assistant',
				content: null,
				tool_calls: calls.map((call, i) => ({
					id: `c${i}`,
					type: 'function',
					function: { name: call.name, arguments: call.args },
				})),
				vendorTurn: { dialect: 'anthropic', content: [] },
			},
			toolCalls: calls.map((call, i) => ({
				id: `c${i}`,
				name: call.name,
				arguments: JSON.parse(call.args),
				rawArguments: call.args,
			})),
			finish: 'tool_calls',
			finishReason: 'tool_use',
			tokens: { input: 1, output: 1, cacheRead: null, cacheWrite: null, reasoning: null },
		}) as ModelTurn;

	it('takes a call of the answer tool for the answer, unwrapping a wrapped one, and keeps no vendor turn', () => {
		const answered = answerByTool(
			turn([{ name: 'final_answer', args: '{"answer":["a","b"]}' }]),
			{
				name: 'final_answer',
				wrapped: true,
			},
			sameNames,
		);
		expect(answered.message).toEqual({ role: 'assistant', content: '["a","b"]' });
		expect(answered.toolCalls).toEqual([]);
		expect(answered.finish).toBe('stop');
	});

	it('drops the answer call beside calls to run: they come first', () => {
		const answered = answerByTool(
			turn([
				{ name: 'weather', args: '{}' },
				{ name: 'final_answer', args: '{"city":"Rome"}' },
			]),
			{ name: 'final_answer', wrapped: false },
			sameNames,
		);
		expect(answered.toolCalls.map((call) => call.name)).toEqual(['weather']);
		expect(answered.message.tool_calls?.map((call) => call.function.name)).toEqual(['weather']);
	});

	it('keeps the parts of a Gemini turn but the answer call, their signature with them', () => {
		const signed = { functionCall: { name: 'weather', args: {} }, thoughtSignature: 'sig' };
		const calls = turn([
			{ name: 'weather', args: '{}' },
			{ name: 'final_answer', args: '{"city":"Rome"}' },
		]);
		calls.message.vendorTurn = {
			dialect: 'gemini',
			content: [signed, { functionCall: { name: 'final_answer', args: { city: 'Rome' } } }],
		};
		const answered = answerByTool(calls, { name: 'final_answer', wrapped: false }, sameNames);
		expect(answered.message.vendorTurn).toEqual({ dialect: 'gemini', content: [signed] });
	});
});

describe('takeModelTurn with a Response Format', () => {
	it('sets output to the checked answer, and traces the check', async () => {
		const { conversation } = await takeModelTurn(
			opening,
			contextWith(answering(text('{"city":"Rome","degrees":21}'))),
		);
		expect(conversation.answer).toBe('{"city":"Rome","degrees":21}');
		expect(conversation.output).toEqual({ city: 'Rome', degrees: 21 });
		expect(conversation.trace.at(-1)).toMatchObject({
			step: 'answer.validation',
			status: 'valid',
			payload: { city: 'Rome', degrees: 21 },
		});
	});

	it('sends a broken answer back naming what is wrong, as another round, and takes the repaired one', async () => {
		const endpoint = answering(text('{"city":"Rome"}'), text('{"city":"Rome","degrees":21}'));
		const { conversation, turn } = await takeModelTurn(opening, contextWith(endpoint));
		expect(endpoint.requests).toHaveLength(2);
		expect(conversation.rounds).toBe(2);
		expect(turn?.round).toBe(2);
		expect(conversation.output).toEqual({ city: 'Rome', degrees: 21 });
		const repair = conversation.messages[2];
		expect(repair).toEqual({
			role: 'user',
			content: expect.stringContaining("must have required property 'degrees'"),
		});
		expect((endpoint.requests[1].body as { messages: unknown[] }).messages).toContainEqual(repair);
		expect(
			conversation.trace
				.filter((entry) => entry.step === 'answer.validation')
				.map((entry) => entry.status),
		).toEqual(['invalid', 'valid']);
		expect(conversation.usage?.modelCalls).toBe(2);
	});

	it('fails the item saying why once Max Repairs is spent', async () => {
		const endpoint = answering(text('nope'), text('still not'));
		await expect(takeModelTurn(opening, contextWith(endpoint, { maxRepairs: 1 }))).rejects.toThrow(
			new AnswerFormatError(
				'it is not JSON (Unexpected token \'s\', "still not" is not valid JSON)',
				1,
			),
		);
		expect(endpoint.requests).toHaveLength(2);
	});

	it('reads an answer given by the answer tool where the vendor takes no structured answer beside tools', async () => {
		const endpoint = answering(
			anthropicMessage(
				[
					{
						type: 'tool_use',
						id: 'toolu_1',
						name: 'final_answer',
						input: { city: 'Rome', degrees: 21 },
					},
				],
				{ stop_reason: 'tool_use' },
			),
		);
		const { conversation } = await takeModelTurn(
			{ ...opening, tools: [{ name: 'weather', inputSchema: { type: 'object', properties: {} } }] },
			contextWith(endpoint, {
				dialect: anthropicDialect,
				settings: {
					model: 'claude-3-5-haiku-20241022',
					toolChoice: 'auto',
					stream: false,
					responseFormat: format,
				},
			}),
		);
		expect(conversation.toolCalls).toEqual([]);
		expect(conversation.output).toEqual({ city: 'Rome', degrees: 21 });
		expect(conversation.messages.at(-1)).toEqual({
			role: 'assistant',
			content: '{"city":"Rome","degrees":21}',
		});
	});

	it('sends the thinking of a turn that called the answer tool beside a tool to run back before that call', async () => {
		const thinking = { type: 'thinking', thinking: 'Weather first.', signature: 'sig-1' };
		const endpoint = answering(
			anthropicMessage(
				[
					thinking,
					{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Rome' } },
					{ type: 'tool_use', id: 'toolu_2', name: 'final_answer', input: { city: 'Rome' } },
				],
				{ stop_reason: 'tool_use' },
			),
		);
		const settings: ModelSettings = {
			model: 'claude-sonnet-4-20250514',
			toolChoice: 'auto',
			stream: false,
			responseFormat: format,
			reasoning: { budgetTokens: 2048 },
		};
		const { conversation } = await takeModelTurn(
			{ ...opening, tools: [{ name: 'weather', inputSchema: { type: 'object', properties: {} } }] },
			contextWith(endpoint, { dialect: anthropicDialect, settings }),
		);
		expect(conversation.toolCalls.map((call) => call.name)).toEqual(['weather']);
		const [call] = conversation.toolCalls;
		const next = anthropicDialect.buildRequest(
			{
				...conversation,
				messages: [
					...conversation.messages,
					{ role: 'tool', tool_call_id: call.id, name: 'weather', content: '21 degrees' },
				],
			},
			settings,
		).body;
		// With thinking on, Anthropic refuses a tool_use turn that does not start with its thinking.
		expect(next.messages[1]).toEqual({
			role: 'assistant',
			content: [
				thinking,
				{ type: 'tool_use', id: 'toolu_1', name: 'weather', input: { city: 'Rome' } },
			],
		});
	});
});
