import type { Conversation, TraceEntry } from '../../lib/conversation/types';
import { executePendingCalls, type ExecutionContext } from '../../lib/execution/executeCalls';
import { recordedToolServer } from '../../lib/execution/toolServer';
import { createRedactor } from '../../lib/json/redact';
import { SchemaValidator } from '../../lib/schema/validator';
import { Recording, ReplayDriftError } from '../../lib/trace/recording';

const at = '2026-01-01T00:00:00.000Z';
const step = (entry: { step: string; round: number } & Record<string, unknown>): TraceEntry => ({
	node: 'Execute Tool Calls',
	at,
	...entry,
});

/** A run that listed two tools, called add (which answered) and then slow (which timed out). */
const recordedEntries = [
	step({
		step: 'tools.list',
		round: 0,
		server: { name: 'calc', version: '1.0.0' },
		payload: [{ name: 'add', inputSchema: { type: 'object' } }],
	}),
	step({
		step: 'tools.call.request',
		round: 1,
		callId: 'call_1',
		payload: { name: 'add', arguments: { a: 2, b: 3 } },
	}),
	step({
		step: 'tools.call.result',
		round: 1,
		callId: 'call_1',
		status: 'ok',
		payload: { content: [{ type: 'text', text: '5' }] },
	}),
	step({
		step: 'tools.call.request',
		round: 1,
		callId: 'call_2',
		payload: { name: 'slow', arguments: {} },
	}),
	step({
		step: 'tools.call.result',
		round: 1,
		callId: 'call_2',
		status: 'timeout',
		payload: { error: "Tool 'slow' did not answer within 10 ms" },
	}),
];
const recorded = new Recording(recordedEntries, 'Execute Tool Calls');

const calling = (args: Record<string, unknown>): Conversation => ({
	messages: [{ role: 'user', content: 'add, then be slow' }],
	tools: [
		{ name: 'add', inputSchema: { type: 'object' }, server: 'calc' },
		{ name: 'slow', inputSchema: { type: 'object' }, server: 'calc' },
	],
	toolCalls: [
		{ id: 'call_1', name: 'add', arguments: args, rawArguments: JSON.stringify(args) },
		{ id: 'call_2', name: 'slow', arguments: {}, rawArguments: '{}' },
	],
	trace: [],
	rounds: 1,
});

const contextOf = (server: ReturnType<typeof recordedToolServer>): ExecutionContext => ({
	server,
	serverLabel: 'calc',
	nodeName: 'Execute Tool Calls',
	validator: new SchemaValidator(),
	storeBinary: async () => 'unused',
	options: { timeoutMs: 1_000 },
	redactor: createRedactor({ secrets: [] }),
	tracePolicy: {
		payloads: 'full',
		maxPayloadBytes: 1_000_000,
		redactor: createRedactor({ secrets: [] }),
	},
});

const execute = (conversation: Conversation) =>
	executePendingCalls(
		conversation,
		contextOf(
			recordedToolServer(recorded, { round: conversation.rounds ?? 0, trace: conversation.trace }),
		),
	);

describe('a recorded tool server', () => {
	it('answers each call as the recorded run did, a failure with its recorded status', async () => {
		const { conversation, statuses } = await execute(calling({ a: 2, b: 3 }));
		expect(statuses).toEqual(['ok', 'timeout']);
		expect(conversation.messages.slice(1)).toEqual([
			expect.objectContaining({ tool_call_id: 'call_1', content: '5' }),
			expect.objectContaining({
				tool_call_id: 'call_2',
				content: "Tool 'slow' did not answer within 10 ms",
				isError: true,
			}),
		]);
	});

	it('marks the steps it answered as replayed, and not the argument checks it did not answer', async () => {
		const { conversation } = await execute(calling({ a: 2, b: 3 }));
		expect(conversation.trace.map((entry) => [entry.step, entry.replayed ?? false])).toEqual([
			['arguments.validation', false],
			['tools.call.request', true],
			['tools.call.result', true],
			['arguments.validation', false],
			['tools.call.request', true],
			['tools.call.result', true],
		]);
	});

	it("answers a live model's calls, named anew, by their place in the turn the recording made", async () => {
		const turn = (ids: string[], names = ['add', 'slow']) =>
			step({
				step: 'model.response',
				node: 'Model',
				round: 1,
				toolCalls: ids.map((id, index) => ({ id, name: names[index] })),
			});
		const withTurn = new Recording(
			[turn(['call_1', 'call_2']), ...recordedEntries],
			'Execute Tool Calls',
		);
		const live = calling({ a: 2, b: 3 });
		live.toolCalls = live.toolCalls.map((call, index) => ({ ...call, id: `live_${index}` }));
		live.trace = [turn(['live_0', 'live_1'])];
		const { conversation, statuses } = await executePendingCalls(
			live,
			contextOf(recordedToolServer(withTurn, { round: 1, trace: live.trace })),
		);
		expect(statuses).toEqual(['ok', 'timeout']);
		expect(conversation.messages.slice(1)).toEqual([
			expect.objectContaining({ tool_call_id: 'live_0', content: '5' }),
			expect.objectContaining({ tool_call_id: 'live_1', isError: true }),
		]);
		// Asked in the other order, each call still gets the answer of its own recorded call.
		const reordered = {
			...live,
			toolCalls: [...live.toolCalls].reverse(),
			trace: [turn(['live_1', 'live_0'], ['slow', 'add'])],
		};
		const other = await executePendingCalls(
			reordered,
			contextOf(recordedToolServer(withTurn, { round: 1, trace: reordered.trace })),
		);
		expect(other.statuses).toEqual(['timeout', 'ok']);
	});

	it('answers each of two calls alike (the same tool and arguments) with its own recorded answer', () => {
		const dice = (ids: string[]) =>
			step({
				step: 'model.response',
				node: 'Model',
				round: 1,
				toolCalls: ids.map((id) => ({ id, name: 'roll_dice' })),
			});
		const roll = (callId: string, text: string) => [
			step({
				step: 'tools.call.request',
				round: 1,
				callId,
				payload: { name: 'roll_dice', arguments: {} },
			}),
			step({
				step: 'tools.call.result',
				round: 1,
				callId,
				status: 'ok',
				payload: { content: [{ type: 'text', text }] },
			}),
		];
		const recording = new Recording(
			[dice(['call_1', 'call_2']), ...roll('call_1', '3'), ...roll('call_2', '5')],
			'Execute Tool Calls',
		);
		const place = { round: 1, trace: [dice(['live_0', 'live_1'])] };
		const texts = ['live_0', 'live_1'].map((id) => {
			const answer = recording.toolAnswer(place, id, 'roll_dice', {});
			return 'result' in answer ? answer.result.content : answer;
		});
		expect(texts).toEqual([[{ type: 'text', text: '3' }], [{ type: 'text', text: '5' }]]);
	});

	it('stops the run, naming the step, when a call differs from the recorded one', async () => {
		const drift = await execute(calling({ a: 2, b: 4 })).catch((error: unknown) => error);
		expect(drift).toBeInstanceOf(ReplayDriftError);
		expect((drift as Error).message).toBe(
			'The run drifted from the recording at round 1, step tools.call.request: arguments.b was 3 in the recording and is 4 now',
		);
	});

	it('finds the tools the recorded server last listed by that point of the run', async () => {
		for (const round of [0, 3])
			await expect(
				recordedToolServer(recorded, { round, trace: [] }).findTool('add'),
			).resolves.toEqual({ name: 'add', inputSchema: { type: 'object' } });
		await expect(
			recordedToolServer(new Recording([], 'Execute Tool Calls'), {
				round: 1,
				trace: [],
			}).findTool('add'),
		).rejects.toThrow(/round 1, step tools.list: the recording listed no tools by then/);
	});

	it('finds, in a recording of two conversations, what the first knew while the run replays the first', async () => {
		const listing = (names: string[]) =>
			step({
				step: 'tools.list',
				round: 0,
				payload: names.map((name) => ({ name, inputSchema: { type: 'object' } })),
			});
		const response = step({ step: 'model.response', round: 1, node: 'Model', payload: {} });
		const twoConversations = new Recording(
			[listing(['add']), response, listing(['add', 'mul']), response],
			'Execute Tool Calls',
		);
		const mulAt = (responses: number) =>
			recordedToolServer(twoConversations, {
				round: 1,
				trace: Array.from({ length: responses }, () => response),
			}).findTool('mul');
		expect(await mulAt(1)).toBeUndefined();
		expect(await mulAt(2)).toMatchObject({ name: 'mul' });
	});

	it('answers a call of a tool the item does not carry as the recorded run did: unknown, the server not called', async () => {
		const conversation: Conversation = {
			...calling({}),
			toolCalls: [{ id: 'call_1', name: 'nope', arguments: {}, rawArguments: '{}' }],
		};
		const { conversation: answered, statuses } = await execute(conversation);
		expect(statuses).toEqual(['unknownTool']);
		expect(answered.messages.at(-1)).toMatchObject({
			content: "Unknown tool 'nope'. The server was not called.",
		});
	});

	it('stops the run when the tools cannot be known from the recording, rather than tell the model the server is away', async () => {
		const empty = new Recording([], 'Execute Tool Calls');
		// An item without tools (calls built in the workflow) asks the server for the called tool.
		const conversation: Conversation = {
			...calling({}),
			tools: [],
			toolCalls: [{ id: 'call_1', name: 'nope', arguments: {}, rawArguments: '{}' }],
		};
		const drift = await executePendingCalls(
			conversation,
			contextOf(recordedToolServer(empty, { round: 1, trace: [] })),
		).catch((error: unknown) => error);
		expect(drift).toBeInstanceOf(ReplayDriftError);
	});

	it('answers a call whose round and id come again (rounds counted anew, ids per round) with the next recorded answer', async () => {
		const timeCall = (text: string) => [
			step({
				step: 'tools.call.request',
				round: 1,
				callId: 'call_0',
				payload: { name: 'add', arguments: {} },
			}),
			step({
				step: 'tools.call.result',
				round: 1,
				callId: 'call_0',
				status: 'ok',
				payload: { content: [{ type: 'text', text }] },
			}),
		];
		const twice = new Recording([...timeCall('10:00'), ...timeCall('11:00')], 'Execute Tool Calls');
		const asking = (trace: Conversation['trace']): Conversation => ({
			...calling({}),
			toolCalls: [{ id: 'call_0', name: 'add', arguments: {}, rawArguments: '{}' }],
			trace,
		});
		const run = (conversation: Conversation) =>
			executePendingCalls(
				conversation,
				contextOf(recordedToolServer(twice, { round: 1, trace: conversation.trace })),
			);
		const first = await run(asking([]));
		expect(first.conversation.messages.at(-1)?.content).toBe('10:00');
		const second = await run(asking(first.conversation.trace));
		expect(second.conversation.messages.at(-1)?.content).toBe('11:00');
	});

	/** A recording of one call of add, with `between` recorded between its request and its result. */
	const oneAddCall = (result: unknown, between: TraceEntry[] = []) =>
		new Recording(
			[
				step({
					step: 'tools.call.request',
					round: 1,
					callId: 'call_1',
					payload: { name: 'add', arguments: {} },
				}),
				...between,
				step({
					step: 'tools.call.result',
					round: 1,
					callId: 'call_1',
					status: 'ok',
					payload: result,
				}),
			],
			'Execute Tool Calls',
		);
	const answerAddFrom = (recording: Recording) =>
		executePendingCalls(
			{
				...calling({}),
				toolCalls: [{ id: 'call_1', name: 'add', arguments: {}, rawArguments: '{}' }],
			},
			contextOf(recordedToolServer(recording, { round: 1, trace: [] })),
		);

	it('tells the call of what the server asked during it, as the recorded run was told', async () => {
		const asked = {
			message: 'Which unit?',
			requestedSchema: { type: 'object', properties: { unit: { type: 'string' } } },
		};
		const elicited = step({
			step: 'server.request',
			round: 1,
			callId: 'call_1',
			method: 'elicitation/create',
			action: 'accept',
			tiedBy: 'only-call',
			payload: { request: asked, answer: { action: 'accept', content: { unit: 'cm' } } },
		});
		const { conversation: answered } = await answerAddFrom(
			oneAddCall({ content: [{ type: 'text', text: '5 cm' }] }, [elicited]),
		);
		expect(answered.messages.at(-1)?.content).toBe(
			'5 cm\n[The tool asked for input: "Which unit?" (fields: unit). It was given: {"unit":"cm"}.]',
		);
		expect(answered.trace.map((entry) => [entry.step, entry.replayed ?? false])).toEqual([
			['arguments.validation', false],
			['tools.call.request', true],
			['server.request', true],
			['tools.call.result', true],
		]);
		expect(answered.trace[2]).toMatchObject({ method: 'elicitation/create', action: 'accept' });
	});

	it('tells the call of a request it refused as too large to read, as the recorded run was told', async () => {
		const refusal =
			'The elicitation/create request is 11.0 MB, more than the 10.0 MB this client reads (Max Result Size); it was refused unread';
		const refused = step({
			step: 'server.request',
			round: 1,
			callId: 'call_1',
			method: 'elicitation/create',
			action: 'refused',
			tiedBy: 'only-call',
			error: refusal,
			requestBytes: 11_534_500,
			payload: {},
		});
		const { conversation: answered } = await answerAddFrom(
			oneAddCall({ content: [{ type: 'text', text: 'no unit' }] }, [refused]),
		);
		expect(answered.messages.at(-1)?.content).toBe(
			`no unit\n[The tool sent this client a request too large to read; it was refused: ${refusal}.]`,
		);
		expect(answered.trace[2]).toMatchObject({
			step: 'server.request',
			method: 'elicitation/create',
			action: 'refused',
			error: refusal,
			requestBytes: 11_534_500,
			replayed: true,
		});
	});

	it('answers a recorded result that has an error key beside its content as the result it was', async () => {
		const { conversation: answered, statuses } = await answerAddFrom(
			oneAddCall({ content: [{ type: 'text', text: '5' }], error: null }),
		);
		expect(statuses).toEqual(['ok']);
		expect(answered.messages.at(-1)).toMatchObject({ content: '5' });
	});
});
