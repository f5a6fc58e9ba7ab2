/**
 * What every dialect does alike, checked once over a table that says how each vendor expresses the
 * case (test/support/dialectCases.ts). What one vendor does its own way stays in its own test file.
 */
import type { Conversation, Message, ModelTurn, Tool } from '../../lib';
import { DIALECTS } from '../../lib/dialects/registry';
import type { ModelSettings } from '../../lib/dialects/types';
import { DIALECT_CASES } from '../support/dialectCases';
import { echoWithoutSchema as echo, weather } from '../support/dialectTools';
import { functionsOf, ruleViolations } from '../support/vendorRules';

const OUR_KEYS =
	'structuredContent|attachments|isError|mcpName|annotations|outputSchema|readOnlyHint|vendorTurn|"server"';

describe.each(DIALECT_CASES.map((row) => [row.id, row] as const))('%s', (_id, row) => {
	const dialect = DIALECTS[row.id];
	const settings: ModelSettings = { model: row.model, toolChoice: 'auto', stream: false };
	const build = (
		conversation: Pick<Conversation, 'messages' | 'tools'>,
		overrides: Partial<ModelSettings> = {},
	) => dialect.buildRequest(conversation, { ...settings, ...overrides });
	// A name every vendor must repair, so that mapping it back is seen for Gemini too.
	const repaired: Tool = { name: 'a/b', inputSchema: {} };
	const names = build({ tools: [weather, echo, repaired], messages: [] }).names;
	const parse = (body: unknown) => dialect.parseResponse(body, names);
	function assemble(events: unknown[]) {
		const assembler = dialect.createStreamAssembler();
		for (const event of events) assembler.push(event);
		return assembler;
	}
	/** The turn without the vendorTurn that Gemini keeps of every turn, which must be there exactly then. */
	function neutral(turn: ModelTurn): ModelTurn {
		const { vendorTurn, ...message } = turn.message;
		expect(vendorTurn !== undefined).toBe(row.keepsEveryTurn);
		return { ...turn, message };
	}

	describe('buildRequest', () => {
		it('sends none of our own keys', () => {
			const answer = parse(
				row.callsAnswer([
					{ id: 'call_a', name: row.dottedName, arguments: row.wireArguments({ city: 'Oslo' }) },
					{ id: 'call_b', name: 'echo' },
				]),
			);
			const [first, second] = answer.toolCalls.map((call) => call.id);
			const { body } = build({
				tools: [weather, echo],
				messages: [
					{ role: 'system', content: 'Be brief.' },
					{ role: 'user', content: 'Weather in Oslo?' },
					answer.message,
					{
						role: 'tool',
						tool_call_id: first,
						content: '{"temp":3}',
						name: 'weather.get',
						structuredContent: { temp: 3 },
						attachments: [{ binaryProperty: 'data', kind: 'image', mimeType: 'image/png' }],
					},
					{
						role: 'tool',
						tool_call_id: second,
						content: 'Error: echo timed out after 5 s',
						isError: true,
						name: 'echo',
					},
					{ role: 'assistant', content: 'Checking.', tool_calls: [] },
				],
			});
			// Gemini's format has no tool_calls or tool_call_id, so our message keys must not leak into it.
			const ours = row.id === 'gemini' ? `${OUR_KEYS}|tool_call` : OUR_KEYS;
			expect(JSON.stringify(body)).not.toMatch(new RegExp(ours));
		});

		describe('Additional Body Fields', () => {
			// Where the node puts the temperature in this vendor's body, and so where a field beside it goes.
			const nested =
				row.id === 'gemini' ? 'generationConfig' : row.id === 'ollama' ? 'options' : undefined;
			const at = (fields: Record<string, unknown>) => (nested ? { [nested]: fields } : fields);
			const ask = { tools: [weather], messages: [{ role: 'user' as const, content: 'x' }] };

			it('merges fields the node does not model, objects key by key with what the node sets', () => {
				const { body } = build(ask, {
					temperature: 0.5,
					bodyFields: { seed: 7, ...at({ top_k: 3 }) },
				}) as { body: Record<string, any> };
				expect(body.seed).toBe(7);
				const settingsObject = nested ? body[nested] : body;
				expect(settingsObject).toMatchObject({ top_k: 3, temperature: 0.5 });
			});

			it('refuses a field the node writes itself, by name, and one an option already sets', () => {
				const owned =
					row.id === 'gemini' ? 'contents' : row.id === 'openaiResponses' ? 'input' : 'messages';
				expect(() => build(ask, { bodyFields: { [owned]: [], seed: 1 } })).toThrow(
					`Additional Body Fields sets '${owned}', which the node writes itself`,
				);
				expect(() => build(ask, { bodyFields: { tools: [] } })).toThrow("sets 'tools'");
				const path = nested ? `${nested}.temperature` : 'temperature';
				expect(() => build(ask, { temperature: 0.5, bodyFields: at({ temperature: 1 }) })).toThrow(
					`Additional Body Fields sets '${path}', which the node already sets to 0.5 from its options`,
				);
			});
		});

		it('leaves out tools and every tool setting when there are no tools', () => {
			for (const parallelToolCalls of [true, false]) {
				const { body } = build(
					{ tools: [], messages: [{ role: 'user', content: 'Hi' }] },
					{ toolChoice: 'required', parallelToolCalls },
				);
				expect(body).toEqual(row.plainRequest('Hi'));
			}
		});

		it('maps a history call to a tool no longer offered to a legal name, and back', () => {
			const { body, names: map } = build({
				tools: [],
				messages: [
					{
						role: 'assistant',
						content: null,
						tool_calls: [
							{ id: 'c1', type: 'function', function: { name: 'old/tool', arguments: '{}' } },
						],
					},
				],
			});
			expect(row.historyCalls(body).map((call) => call.name)).toEqual(['old_tool']);
			expect(map.fromVendor('old_tool')).toBe('old/tool');
		});

		it('ignores a vendorTurn that another dialect wrote', () => {
			const message: Message = {
				role: 'assistant',
				content: 'Hi.',
				tool_calls: [
					{
						id: 'call_1',
						type: 'function',
						function: { name: 'weather.get', arguments: '{"city":"Oslo"}' },
					},
				],
			};
			const other =
				row.id === 'anthropic'
					? { dialect: 'gemini', content: [{ text: 'Hi.' }] }
					: { dialect: 'anthropic', content: [{ type: 'thinking', thinking: 'Hidden.' }] };
			const conversation = (messages: Message[]) => ({ tools: [weather], messages });
			expect(build(conversation([{ ...message, vendorTurn: other }])).body).toEqual(
				build(conversation([message])).body,
			);
		});

		if (row.toolChoice) {
			const { toolChoice } = row;
			const tools: Tool[] = [weather, { name: 'my tool', inputSchema: {} }];
			it.each<[ModelSettings['toolChoice'], unknown]>([
				['auto', toolChoice.auto],
				['required', toolChoice.required],
				['none', toolChoice.none],
				[{ name: 'weather.get' }, toolChoice.named(row.dottedName)],
				[{ name: 'my tool' }, toolChoice.named('my_tool')],
			])('maps tool choice %j, a named tool under its vendor name', (choice, expected) => {
				const { body } = build({ tools, messages: [] }, { toolChoice: choice });
				expect(toolChoice.of(body)).toEqual(expected);
			});
		}

		describe("a tool's arguments as an object schema, by one rule (lib/schema/objectRoot.ts)", () => {
			const rootOf = (inputSchema: Tool['inputSchema']) => {
				const { body } = build({
					tools: [{ name: 'tool', inputSchema }],
					messages: [{ role: 'user', content: 'x' }],
				});
				const [fn] = functionsOf(row.id, body as Record<string, unknown>);
				return fn.schema as Record<string, unknown>;
			};

			// OpenAI refuses an object without properties ("object schema missing properties"), Gemini an
			// OBJECT whose properties map is empty ("should be non-empty for OBJECT type").
			const emptyObject =
				row.objectType === 'OBJECT' ? { type: 'OBJECT' } : { type: 'object', properties: {} };

			it('sends an empty object schema for a tool without one, as each vendor takes it', () => {
				expect(rootOf({})).toEqual(emptyObject);
			});

			it.each([
				['{"type":"object"}', { type: 'object' }],
				[
					'$schema alone (the published GitLab server)',
					{ $schema: 'http://json-schema.org/draft-07/schema#' },
				],
			])('sends %s as an object the vendor takes', (_what, inputSchema) => {
				const root = rootOf(inputSchema);
				expect(root.type).toBe(row.objectType);
				expect(root.properties).toEqual(emptyObject.properties);
			});

			it('keeps nested objects without properties within the vendor rules', () => {
				const { body } = build({
					tools: [
						{
							name: 'tool',
							inputSchema: {
								type: 'object',
								properties: {
									meta: { type: 'object' },
									closed: { type: 'object', properties: {} },
								},
							},
						},
					],
					messages: [{ role: 'user', content: 'x' }],
				});
				expect(ruleViolations(row.id, body as Record<string, unknown>)).toEqual([]);
			});

			it('sends the object type for a type list that allows an object', () => {
				const root = rootOf({ type: ['object', 'null'], properties: { a: { type: 'string' } } });
				expect(root.type).toBe(row.objectType);
			});

			it('refuses a schema that allows no object, naming the tool, before anything is sent', () => {
				expect(() => rootOf({ type: 'string' })).toThrow(
					`Tool 'tool' cannot be offered to a model: its input schema has type "string", and a tool's arguments are always an object.`,
				);
			});
		});

		if (row.noStrictMode) {
			const reason = expect.stringMatching(row.noStrictMode);
			it('sends no strict flag, and names every tool as not strict only when strict was asked for', () => {
				const strict = build({ tools: [weather, echo], messages: [] }, { strict: true });
				expect(JSON.stringify(strict.body)).not.toContain('strict');
				expect(strict.notStrict).toEqual([
					{ name: 'weather.get', reason },
					{ name: 'echo', reason },
				]);
				expect(build({ tools: [weather], messages: [] }).notStrict).toEqual([]);
			});
		}
	});

	describe('parseResponse', () => {
		it('reads a text answer', () => {
			expect(neutral(parse(row.textAnswer('It is 3 °C.')))).toEqual({
				message: { role: 'assistant', content: 'It is 3 °C.' },
				toolCalls: [],
				finish: 'stop',
				finishReason: row.stopReason,
				usage: row.usage,
				tokens: row.tokens,
				...(row.answeredBy && { model: row.answeredBy }),
			});
		});

		it('reads tool calls by their presence, maps names back, keeps ids, makes up missing and repeated ones, and guards the arguments', () => {
			const body = row.callsAnswer([
				{ id: 'call_x', name: row.dottedName, arguments: '{"city":"Oslo"}' },
				{ id: '', name: 'echo' },
				{ name: 'nope', arguments: '{"a":1,}' },
				{ id: 'call_x', name: 'echo', arguments: '[1]' },
				// Some servers send arguments as an object where the vendor's format has JSON text.
				{ id: 'call_e', name: 'echo', arguments: { text: 'hi' } },
				{ id: 'call_ab', name: 'a_b', arguments: row.wireArguments({ q: 1 }) },
			]);
			const toolCalls = [
				{
					id: 'call_x',
					name: 'weather.get',
					arguments: { city: 'Oslo' },
					rawArguments: '{"city":"Oslo"}',
				},
				{ id: 'call_1', name: 'echo', arguments: {}, rawArguments: '' },
				{
					id: 'call_2',
					name: 'nope',
					arguments: null,
					rawArguments: '{"a":1,}',
					argumentsError: 'not valid JSON: trailing comma at position 6',
				},
				{
					id: 'call_3',
					name: 'echo',
					arguments: null,
					rawArguments: '[1]',
					argumentsError: 'must be a JSON object, got array',
				},
				{ id: 'call_e', name: 'echo', arguments: { text: 'hi' }, rawArguments: '{"text":"hi"}' },
				{ id: 'call_ab', name: 'a/b', arguments: { q: 1 }, rawArguments: '{"q":1}' },
			];
			expect(neutral(parse(body))).toEqual({
				message: {
					role: 'assistant',
					content: null,
					tool_calls: toolCalls.map(({ id, name, rawArguments }) => ({
						id,
						type: 'function',
						function: { name, arguments: rawArguments },
					})),
				},
				toolCalls,
				// The calls decide: servers report their usual stop reason beside calls too.
				finish: 'tool_calls',
				finishReason: row.stopReason,
				usage: row.usage,
				tokens: row.tokens,
				...(row.answeredBy && { model: row.answeredBy }),
			});
		});

		it('refuses a call without a name, naming the piece: no tool could answer it', () => {
			const body = row.callsAnswer([
				{ id: 'call_a', name: 'echo', arguments: row.wireArguments({}) },
				{ id: 'call_b', arguments: row.wireArguments({ q: 1 }) },
			]);
			expect(() => parse(body)).toThrow(
				/^The model API sent a tool call without a name \(call 2 of 2\), which no tool can answer: .*call_b/,
			);
		});

		it("makes up ids that are none of the vendor's ids in the same turn, which stay as they came", () => {
			const ids = (calls: { id?: string }[]) =>
				parse(row.callsAnswer(calls.map((call) => ({ ...call, name: 'echo' })))).toolCalls.map(
					(call) => call.id,
				);
			expect(ids([{ id: 'call_1' }, {}])).toEqual(['call_1', 'call_1_2']);
			expect(ids([{ id: 'call_1' }, { id: 'call_1' }])).toEqual(['call_1', 'call_1_2']);
			expect(ids([{}, { id: 'call_0' }])).toEqual(['call_0_2', 'call_0']);
			expect(ids([{}, { id: 'call_0' }, { id: 'call_0_2' }])).toEqual([
				'call_0_3',
				'call_0',
				'call_0_2',
			]);
		});

		it('keeps text sent beside tool calls', () => {
			const body = row.callsAnswer(
				[{ id: 'c', name: 'echo', arguments: row.wireArguments({}) }],
				'Let me check.',
			);
			expect(parse(body).message.content).toBe('Let me check.');
		});

		it.each<[string, unknown, string]>([
			[
				'not an object',
				'Bad Gateway',
				'The model API returned an error: not a JSON object: "Bad Gateway"',
			],
			[
				'an error string',
				{ error: 'model not found' },
				'The model API returned an error: model not found',
			],
			[
				'an error object with a message only',
				{ error: { code: 500, message: 'Internal error' } },
				'The model API returned an error: Internal error',
			],
		])('throws a clear error for %s', (_label, body, message) => {
			expect(() => parse(body)).toThrow(new Error(message));
		});

		it('throws a clear error for a body without the answer', () => {
			const { body, missing } = row.withoutAnswer;
			expect(() => parse(body)).toThrow(
				new Error(`The model API response has no ${missing}: ${JSON.stringify(body)}`),
			);
		});
	});

	describe('createStreamAssembler', () => {
		const pieces = ['It ', 'is 3 ', '°C', ' in Oslo.'];

		it('gives the same turn for a text answer split into pieces as for the whole answer', () => {
			const streamed = assemble(row.textStream(pieces).events);
			expect(streamed.finished()).toBe(true);
			expect(parse(streamed.result())).toEqual(parse(row.textAnswer(pieces.join(''))));
		});

		it('is not finished when the stream is cut before its end, and reports what came', () => {
			const { events, ending } = row.textStream(pieces);
			const cut = assemble(events.slice(0, -ending));
			expect(cut.finished()).toBe(false);
			expect(parse(cut.result())).toMatchObject({
				message: { role: 'assistant', content: pieces.join('') },
				toolCalls: [],
				finish: 'other',
				finishReason: row.cutReason,
			});
		});

		it('carries a streamed error to the parser', () => {
			const { events, message, ends } = row.streamedError;
			const assembler = assemble(events);
			expect(assembler.finished()).toBe(ends);
			expect(() => parse(assembler.result())).toThrow(new Error(message));
		});

		it('is not finished after an empty stream, whose body says so', () => {
			const empty = assemble([]);
			expect(empty.finished()).toBe(false);
			if (row.emptyStream === 'refused') {
				expect(() => parse(empty.result())).toThrow(
					`The model API response has no ${row.withoutAnswer.missing}`,
				);
			} else {
				expect(parse(empty.result())).toEqual({
					message: { role: 'assistant', content: null },
					toolCalls: [],
					finish: 'other',
					finishReason: null,
					// Nothing reported: every count unknown, none taken for a zero.
					tokens: { input: null, output: null, cacheRead: null, cacheWrite: null, reasoning: null },
				});
			}
		});
	});

	describe('http', () => {
		it('reads no error from an answer, or from a body that is no JSON object', () => {
			expect(dialect.http.errorMessage(row.textAnswer('x'))).toBeUndefined();
			expect(dialect.http.errorMessage('Bad Gateway')).toBeUndefined();
		});

		it('lists no model from an error body', () => {
			expect(dialect.http.parseModels({ error: 'x' })).toEqual([]);
		});
	});

	it('maps a dotted MCP name out in the request, back in the response, and out again', () => {
		const first = build({ tools: [weather], messages: [] });
		expect(row.toolNames(first.body)).toEqual([row.dottedName]);
		const turn = dialect.parseResponse(
			row.callsAnswer([
				{ id: 'c', name: row.dottedName, arguments: row.wireArguments({ city: 'Oslo' }) },
			]),
			first.names,
		);
		expect(turn.toolCalls).toEqual([
			{
				id: 'c',
				name: 'weather.get',
				arguments: { city: 'Oslo' },
				rawArguments: '{"city":"Oslo"}',
			},
		]);
		const next = build({
			tools: [weather],
			messages: [turn.message, { role: 'tool', tool_call_id: 'c', content: '3 °C' }],
		});
		expect(row.historyCalls(next.body)).toEqual([
			{ id: 'c', name: row.dottedName, arguments: { city: 'Oslo' } },
		]);
		expect(row.historyResults(next.body)).toEqual([{ id: 'c', output: '3 °C' }]);
	});
});
