/**
 * The model turn's shape in every vendor's request: a structured answer, reasoning and prompt
 * caching, each the vendor's way, and every body within the vendor's documented rules
 * (test/support/requestRules.ts), which the stand-ins hold requests to as well.
 */
import type { Conversation, Tool } from '../../lib/conversation/types';
import { DIALECTS } from '../../lib/dialects/registry';
import type { DialectId, ModelSettings, ResponseFormat } from '../../lib/dialects/types';
import { weather } from '../support/dialectTools';
import { ruleViolations } from '../support/vendorRules';

type Json = Record<string, any>;
const schema = {
	type: 'object',
	properties: { city: { type: 'string' }, note: { type: 'string' } },
	required: ['city'],
};
const jsonSchema: ResponseFormat = { type: 'jsonSchema', name: 'answer', schema };
const ask: Pick<Conversation, 'messages' | 'tools'> = {
	messages: [
		{ role: 'system', content: 'Be brief.' },
		{ role: 'user', content: 'Where is it warm?' },
	],
	tools: [weather],
};
const MODELS: Record<DialectId, string> = {
	openaiChat: 'gpt-5',
	openaiResponses: 'gpt-5',
	anthropic: 'claude-sonnet-4-5',
	gemini: 'gemini-3-pro-preview',
	ollama: 'gpt-oss:20b',
};

function build(id: DialectId, settings: Partial<ModelSettings>, conversation = ask) {
	const request = DIALECTS[id].buildRequest(conversation, {
		model: MODELS[id],
		toolChoice: 'auto',
		stream: false,
		...settings,
	});
	expect(ruleViolations(id, request.body as Json)).toEqual([]);
	return request as typeof request & { body: Json };
}

describe('a structured answer, as each vendor takes it natively', () => {
	it.each([
		[
			'openaiChat',
			(body: Json) => body.response_format,
			{
				type: 'json_schema',
				json_schema: {
					name: 'answer',
					strict: true,
					schema: expect.objectContaining({
						additionalProperties: false,
						required: ['city', 'note'],
					}),
				},
			},
		],
		[
			'openaiResponses',
			(body: Json) => body.text,
			{
				format: {
					type: 'json_schema',
					name: 'answer',
					strict: true,
					schema: expect.objectContaining({ additionalProperties: false }),
				},
			},
		],
		[
			'anthropic',
			(body: Json) => body.output_config,
			{
				format: {
					type: 'json_schema',
					schema: expect.objectContaining({ additionalProperties: false }),
				},
			},
		],
		[
			'gemini',
			(body: Json) => body.generationConfig,
			{
				responseMimeType: 'application/json',
				responseSchema: {
					type: 'OBJECT',
					properties: { city: { type: 'STRING' }, note: { type: 'STRING' } },
					required: ['city'],
				},
			},
		],
		['ollama', (body: Json) => body.format, schema],
	] as const)('%s', (id, read, expected) => {
		const request = build(id, { responseFormat: jsonSchema });
		expect(read(request.body)).toEqual(expected);
		expect(request.answerTool).toBeUndefined();
	});

	it('sends a schema strict mode cannot hold as it is, not strict', () => {
		const open = { type: 'object', additionalProperties: { type: 'number' } };
		const { body } = build('openaiChat', {
			responseFormat: { type: 'jsonSchema', name: 'answer', schema: open },
		});
		expect(body.response_format.json_schema).toEqual({
			name: 'answer',
			schema: open,
			strict: false,
		});
	});

	it('asks OpenAI for JSON mode with the word it needs in a message, added only when none says it', () => {
		const { body } = build('openaiChat', { responseFormat: { type: 'json' } });
		expect(body.response_format).toEqual({ type: 'json_object' });
		expect(body.messages[0]).toEqual({ role: 'system', content: 'Answer with JSON.' });
		const said = build(
			'openaiResponses',
			{ responseFormat: { type: 'json' } },
			{
				...ask,
				messages: [{ role: 'user', content: 'Answer in json.' }],
			},
		);
		expect(said.body.instructions).toBeUndefined();
		expect(said.body.text).toEqual({ format: { type: 'json_object' } });
	});

	it.each([
		[
			'anthropic',
			'claude-3-5-haiku-20241022',
			(body: Json) => body.tools.map((tool: Json) => tool.name),
		],
		[
			'gemini',
			'gemini-2.5-flash',
			(body: Json) => body.tools[0].functionDeclarations.map((fn: Json) => fn.name),
		],
	] as const)(
		'asks %s models without a JSON answer beside tools (%s) for it by a tool',
		(id, model, toolNames) => {
			const request = build(id, { model, responseFormat: jsonSchema });
			expect(toolNames(request.body)).toEqual(
				['weather_get', 'final_answer'].map((name) =>
					id === 'gemini' && name === 'weather_get' ? 'weather.get' : name,
				),
			);
			expect(request.answerTool).toEqual({ name: 'final_answer', wrapped: false });
			expect(JSON.stringify(request.body)).not.toMatch(/output_config|responseMimeType/);
		},
	);

	it('forces the answer tool when it is the only tool, and wraps a root that is no object', () => {
		const request = build(
			'anthropic',
			{
				model: 'claude-3-5-haiku-20241022',
				responseFormat: {
					type: 'jsonSchema',
					name: 'answer',
					schema: { type: 'array', items: { type: 'string' } },
				},
			},
			{ ...ask, tools: [] },
		);
		expect(request.body.tool_choice).toEqual({ type: 'tool', name: 'final_answer' });
		expect(request.body.tools[0].input_schema).toEqual({
			type: 'object',
			properties: { answer: { type: 'array', items: { type: 'string' } } },
			required: ['answer'],
		});
		expect(request.answerTool).toEqual({ name: 'final_answer', wrapped: true });
	});
});

describe('reasoning, as each vendor takes it', () => {
	it.each([
		['openaiChat', { effort: 'high' }, (body: Json) => body.reasoning_effort, 'high'],
		['openaiChat', { budgetTokens: 2048 }, (body: Json) => body.reasoning_effort, 'low'],
		[
			'openaiResponses',
			{ effort: 'low' },
			(body: Json) => [body.reasoning, body.include],
			[{ effort: 'low', summary: 'auto' }, ['reasoning.encrypted_content']],
		],
		[
			'anthropic',
			{ budgetTokens: 4000 },
			(body: Json) => [body.thinking, body.max_tokens],
			[{ type: 'enabled', budget_tokens: 4000 }, 4000 + 4096],
		],
		[
			'anthropic',
			{ effort: 'high' },
			(body: Json) => body.thinking,
			{ type: 'enabled', budget_tokens: 16384 },
		],
		[
			'gemini',
			{ effort: 'low' },
			(body: Json) => body.generationConfig.thinkingConfig,
			{ thinkingLevel: 'low', includeThoughts: true },
		],
		['ollama', { effort: 'minimal' }, (body: Json) => body.think, 'low'],
		['ollama', { budgetTokens: 5000 }, (body: Json) => body.think, true],
	] as const)('%s takes %j', (id, reasoning, read, expected) => {
		expect(read(build(id, { reasoning }).body)).toEqual(expected);
	});

	it('gives Gemini 2.5 a thinking budget', () => {
		const { body } = build('gemini', {
			model: 'gemini-2.5-flash',
			reasoning: { effort: 'medium' },
		});
		expect(body.generationConfig.thinkingConfig).toEqual({
			thinkingBudget: 8192,
			includeThoughts: true,
		});
	});

	it("refuses what Anthropic's extended thinking refuses, saying so, before anything is sent", () => {
		const thinking = { reasoning: { effort: 'low' as const } };
		expect(() => build('anthropic', { ...thinking, temperature: 0.2 })).toThrow(
			/takes no temperature but 1/,
		);
		expect(() => build('anthropic', { ...thinking, toolChoice: 'required' })).toThrow(
			/forced tool choice/,
		);
	});
});

describe('prompt caching', () => {
	const history: Tool[] = [weather];
	it('marks the last tool, the system prompt and the conversation so far for Anthropic', () => {
		const { body } = build('anthropic', { promptCaching: true }, { ...ask, tools: history });
		const mark = { type: 'ephemeral' };
		expect(body.tools.at(-1).cache_control).toEqual(mark);
		expect(body.system).toEqual([{ type: 'text', text: 'Be brief.', cache_control: mark }]);
		expect(body.messages.at(-1).content).toEqual([
			{ type: 'text', text: 'Where is it warm?', cache_control: mark },
		]);
		expect(JSON.stringify(build('anthropic', {}).body)).not.toContain('cache_control');
	});

	it('never marks a thinking block, and leaves the conversation it echoes untouched', () => {
		const thinking = { type: 'thinking', thinking: 'Plan.', signature: 'c2ln' };
		const vendorTurn = { dialect: 'anthropic', content: [thinking] };
		const messages = [...ask.messages, { role: 'assistant' as const, content: null, vendorTurn }];
		const { body } = build('anthropic', { promptCaching: true }, { ...ask, messages });
		expect(body.messages.at(-1).content).toEqual([thinking]);
		expect(vendorTurn.content[0]).toEqual(thinking);
	});

	it("sends OpenAI's prompt_cache_key when one is given, in both APIs", () => {
		expect(build('openaiChat', { promptCacheKey: 'n8n-k' }).body.prompt_cache_key).toBe('n8n-k');
		expect(build('openaiResponses', { promptCacheKey: 'n8n-k' }).body.prompt_cache_key).toBe(
			'n8n-k',
		);
	});
});
