import type { RecordedEntry } from '../../lib/trace/read';
import { TraceReadError } from '../../lib/trace/read';
import { storyOf } from '../../lib/trace/story';
import { addThenAnswer, addTool, echoTool, traceOf } from './traces';

const HASH = expect.stringMatching(/^sha256:[0-9a-f]{16}$/);

/** A trace with the payloads left out, as Trace Payloads "Metadata Only" writes it. */
const withoutPayloads = (trace: RecordedEntry[]) =>
	trace.map(({ payload, ...entry }) => ({
		...entry,
		payloadOmitted: 'Trace Payloads is set to Metadata Only',
	}));

/** The result of call "c" of add in round 1, with the given fields. */
const callResult = (fields: Partial<RecordedEntry>): RecordedEntry => ({
	step: 'tools.call.result',
	node: 'N',
	at: '',
	round: 1,
	callId: 'c',
	tool: 'add',
	status: 'ok',
	...fields,
});

describe('storyOf', () => {
	it("tells a trace round by round: tools listed and offered, the choice, each call's arguments and result", () => {
		const story = storyOf(traceOf(addThenAnswer));
		expect(story.map(({ step, round, label, facts }) => ({ step, round, label, facts }))).toEqual([
			{
				step: 'tools.list',
				round: 0,
				label: 'tools listed by everything',
				facts: { tools: 'add, echo', schemas: HASH, descriptions: HASH },
			},
			{
				step: 'tools.offered',
				round: 1,
				label: 'tools offered',
				facts: { tools: 'add, echo', schemas: HASH, descriptions: HASH },
			},
			{
				step: 'model.choice',
				round: 1,
				label: 'model choice',
				facts: { tools: 'add', arguments: '[{"a":2,"b":3}]' },
			},
			{
				step: 'call.arguments',
				round: 1,
				label: 'call 1 add arguments',
				facts: { validation: 'valid', arguments: '{"a":2,"b":3}' },
			},
			{
				step: 'call.result',
				round: 1,
				label: 'call 1 add result',
				facts: { status: 'ok', content: 'The sum of 2 and 3 is 5.' },
			},
			{
				step: 'tools.offered',
				round: 2,
				label: 'tools offered',
				facts: { tools: 'add, echo', schemas: HASH, descriptions: HASH },
			},
			{ step: 'model.choice', round: 2, label: 'model choice', facts: { answer: 'Five.' } },
		]);
	});

	it('leaves out times, durations, vendor ids, usage, attempts, headers and server versions', () => {
		expect(storyOf(traceOf({ ...addThenAnswer, run: 2 }))).toEqual(
			storyOf(traceOf({ ...addThenAnswer, run: 1 })),
		);
	});

	it('reads the calls of every dialect alike, without the text beside them', () => {
		expect(storyOf(traceOf({ ...addThenAnswer, dialect: 'anthropic', run: 3 }))).toEqual(
			storyOf(traceOf(addThenAnswer)),
		);
	});

	it("knows a call by its position among the model's calls, whatever order the servers ran them in", () => {
		const script = {
			rounds: [
				{
					calls: [
						{ name: 'add', arguments: { a: 1, b: 1 }, result: '2' },
						{ name: 'echo', arguments: { message: 'hi' }, result: 'hi' },
					],
				},
			],
		};
		const trace = traceOf(script);
		const isEcho = (entry: RecordedEntry) => entry.tool === 'echo';
		// The echo server's node ran first: its entries come before add's.
		const echoFirst = [
			...trace.filter((entry) => !entry.callId),
			...trace.filter(isEcho),
			...trace.filter((entry) => entry.callId && !isEcho(entry)),
		];
		const story = storyOf(echoFirst);
		expect(story).toEqual(storyOf(trace));
		expect(story.filter((step) => step.step === 'call.result').map((step) => step.label)).toEqual([
			'call 1 add result',
			'call 2 echo result',
		]);
	});

	it('reads a trace without rounds by counting model requests', () => {
		const trace = traceOf(addThenAnswer).map(({ round, ...entry }) => entry);
		expect(storyOf(trace)).toEqual(storyOf(traceOf(addThenAnswer)));
	});

	it('keeps the metadata of steps whose payload was left out, and says so', () => {
		const story = storyOf(withoutPayloads(traceOf(addThenAnswer)));
		expect(story.map((step) => step.facts)).toEqual([
			{ toolCount: '2', listHash: 'sha256:1', payload: 'omitted' },
			{ payload: 'omitted' },
			{ tools: 'add', payload: 'omitted' },
			{ validation: 'valid', payload: 'omitted' },
			{ status: 'ok', payload: 'omitted' },
			{ payload: 'omitted' },
			{ payload: 'omitted' },
		]);
	});

	it("puts a listing made after a round's calls after them", () => {
		const trace = traceOf(addThenAnswer);
		const relisting = { ...trace[0], round: 1, at: '2026-12-02T12:00:00.000Z' };
		const story = storyOf([...trace.slice(0, 7), relisting, ...trace.slice(7)]);
		expect(story.filter((step) => step.round === 1).map((step) => step.step)).toEqual([
			'tools.offered',
			'model.choice',
			'call.arguments',
			'call.result',
			'tools.list',
		]);
	});

	it('hashes the schemas, so a changed schema shows under the same names', () => {
		const changed = { ...addTool, inputSchema: { ...addTool.inputSchema, required: ['a'] } };
		const [before, after] = [
			traceOf(addThenAnswer),
			traceOf({ ...addThenAnswer, tools: [changed, echoTool] }),
		].map(storyOf);
		expect(after[0].facts.tools).toBe(before[0].facts.tools);
		expect(after[0].facts.schemas).not.toBe(before[0].facts.schemas);
		expect(after[1].facts.schemas).not.toBe(before[1].facts.schemas);
	});

	it('hashes what is told of each tool besides its schema: a changed description, title or annotation shows', () => {
		const told = (tool: typeof addTool) =>
			storyOf(traceOf({ ...addThenAnswer, tools: [tool, echoTool] }));
		const before = told(addTool);
		const described = told({
			...addTool,
			description: 'Subtracts b from a. NEVER call for addition.',
		});
		expect(described[0].facts.schemas).toBe(before[0].facts.schemas);
		expect(described[0].facts.descriptions).not.toBe(before[0].facts.descriptions);
		expect(described[1].facts.descriptions).not.toBe(before[1].facts.descriptions);
		const annotated = told({ ...addTool, annotations: { readOnlyHint: true } } as typeof addTool);
		expect(annotated[0].facts.descriptions).not.toBe(before[0].facts.descriptions);
	});

	it('tells one text part as it reads, and several as their list: "A\\nB" is not "A" and "B"', () => {
		const resultOf = (content: unknown[]) =>
			storyOf([callResult({ payload: { content } })])[0].facts.content;
		const one = resultOf([{ type: 'text', text: 'A\nB' }]);
		const two = resultOf([
			{ type: 'text', text: 'A' },
			{ type: 'text', text: 'B' },
		]);
		expect(one).toBe('A\nB');
		expect(two).toBe('["A","B"]');
	});

	it('keeps the size of a payload left out, to tell such steps apart', () => {
		const [first] = storyOf([
			callResult({ bytes: 44, payloadOmitted: 'Trace Payloads is set to Metadata Only' }),
		]);
		expect(first.facts).toEqual({ status: 'ok', bytes: '44', payload: 'omitted' });
	});

	it('tells structured content, non-text parts, errors and error responses', () => {
		const trace = traceOf({
			rounds: [
				{
					calls: [
						{ name: 'add', arguments: { a: 1, b: 2 }, result: '3', structuredContent: { sum: 3 } },
					],
				},
			],
		});
		const result = trace.find((entry) => entry.step === 'tools.call.result')!;
		const image = {
			type: 'image',
			mimeType: 'image/png',
			data: { binaryProperty: 'image_0', bytes: 68 },
		};
		const steps = (entries: RecordedEntry[]) => storyOf(entries).map((step) => step.facts);

		expect(steps([result]).at(-1)).toEqual({
			status: 'ok',
			content: '3',
			structuredContent: '{"sum":3}',
		});
		const withImage = {
			...result,
			payload: { content: [{ type: 'text', text: 'A chart:' }, image] },
		};
		expect(steps([withImage]).at(-1)).toEqual({
			status: 'ok',
			parts: '2',
			content: `["A chart:",{"data":{"binaryProperty":"image_0","bytes":68},"mimeType":"image/png","type":"image"}]`,
		});
		// One text that reads as a list is not two texts; a text that is no string is not that string.
		const withContent = (content: unknown[]) => steps([{ ...result, payload: { content } }]).at(-1);
		expect(withContent([{ type: 'text', text: '["a","b"]' }])).not.toEqual(
			withContent([
				{ type: 'text', text: 'a' },
				{ type: 'text', text: 'b' },
			]),
		);
		expect(withContent([{ type: 'text', text: 5 }])).toEqual({
			status: 'ok',
			parts: '1',
			content: '[{"text":5,"type":"text"}]',
		});
		expect(withContent([{ type: 'text', text: '5' }])).toEqual({ status: 'ok', content: '5' });
		const failed = {
			...result,
			status: 'timeout',
			payload: { error: 'No answer within 60000 ms' },
		};
		expect(steps([failed]).at(-1)).toEqual({
			status: 'timeout',
			content: '{"error":"No answer within 60000 ms"}',
		});

		const response = trace.find((entry) => entry.step === 'model.response')!;
		const refused = {
			...response,
			toolCalls: [],
			payload: { error: { message: 'Rate limit reached' } },
		};
		expect(steps([refused])).toEqual([
			{ error: 'The model API returned an error: Rate limit reached' },
		]);
	});

	it('refuses a model response of a dialect it cannot read, naming the entry', () => {
		const trace = traceOf(addThenAnswer).map((entry) =>
			entry.step === 'model.response' ? { ...entry, dialect: 'cohere' } : entry,
		);
		expect(() => storyOf(trace)).toThrow(TraceReadError);
		expect(() => storyOf(trace)).toThrow(
			'Trace entry 3 (model.response) has dialect "cohere"; expected one of openaiChat, openaiResponses, anthropic, gemini, ollama',
		);
	});
});

describe('a trace whose round numbers start again', () => {
	it('tells each conversation after the one before, its steps named by it', () => {
		const once = traceOf(addThenAnswer);
		const story = storyOf([...once, ...once]);
		expect(story).toHaveLength(14);
		expect(story.slice(0, 7).every((step) => step.conversation === 0)).toBe(true);
		expect(story.slice(7).map((step) => [step.conversation, step.round, step.label])).toEqual([
			[1, 0, 'conversation 2: tools listed by everything'],
			[1, 1, 'conversation 2: tools offered'],
			[1, 1, 'conversation 2: model choice'],
			[1, 1, 'conversation 2: call 1 add arguments'],
			[1, 1, 'conversation 2: call 1 add result'],
			[1, 2, 'conversation 2: tools offered'],
			[1, 2, 'conversation 2: model choice'],
		]);
	});
});
