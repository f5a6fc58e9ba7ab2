import type { Conversation } from '../../lib/conversation/types';
import { recordedModelEndpoint } from '../../lib/decision/endpoint';
import {
	NoToolToChooseError,
	PendingCallsError,
	ResultWithoutCallError,
	UnknownToolChoiceError,
} from '../../lib/decision/readiness';
import { takeModelTurn } from '../../lib/decision/takeTurn';
import { readTrace } from '../../lib/trace/read';
import { Recording, ReplayDriftError } from '../../lib/trace/recording';
import { answering, turnContext, TURN_SETTINGS } from '../support/turnContext';

const addTool = {
	name: 'add',
	inputSchema: {
		type: 'object',
		properties: { a: { type: 'number' }, b: { type: 'number' } },
		required: ['a'],
	},
};

const opening: Conversation = {
	messages: [{ role: 'user', content: 'Add 2 to nothing' }],
	tools: [addTool],
	toolCalls: [],
	trace: [],
};

/** A Chat Completions answer calling add; strict mode made the model send null for the optional b. */
const callingAdd = {
	id: 'chatcmpl-1',
	object: 'chat.completion',
	model: 'gpt-test',
	choices: [
		{
			index: 0,
			finish_reason: 'tool_calls',
			message: {
				role: 'assistant',
				content: null,
				tool_calls: [
					{
						id: 'call_1',
						type: 'function',
						function: { name: 'add', arguments: '{"a":2,"b":null}' },
					},
				],
			},
		},
	],
};

const settings = TURN_SETTINGS;
const contextWith = turnContext;

describe('takeModelTurn', () => {
	it('sends the request the dialect built, applies the answer and traces both steps', async () => {
		const endpoint = answering(callingAdd);
		const { conversation, turn } = await takeModelTurn(opening, contextWith(endpoint));

		expect(endpoint.requests).toHaveLength(1);
		expect(endpoint.requests[0]).toMatchObject({ model: 'gpt-test', stream: false, round: 1 });
		expect(turn).toMatchObject({ round: 1, finish: 'tool_calls' });
		expect(conversation.rounds).toBe(1);
		expect(conversation.toolCalls).toEqual([
			expect.objectContaining({ id: 'call_1', name: 'add', arguments: { a: 2, b: null } }),
		]);
		expect(conversation.trace.map((entry) => [entry.step, entry.round])).toEqual([
			['model.request', 1],
			['model.response', 1],
		]);
		const [request, response] = conversation.trace;
		expect(request).toMatchObject({ node: 'Model', dialect: 'openaiChat', method: 'POST' });
		expect(request.payload).toEqual(endpoint.requests[0].body);
		expect(response).toMatchObject({ attempts: [{ status: 200 }], toolCalls: [{ id: 'call_1' }] });
		expect(request.replayed).toBeUndefined();
	});

	it('keeps of a later request what the trace does not hold, or every byte with Every Request Whole', async () => {
		const answered = {
			...opening,
			rounds: 1,
			messages: [
				...opening.messages,
				{ role: 'assistant' as const, content: 'Which number should I add 2 to?' },
				{ role: 'user' as const, content: 'To 40, please.' },
			],
		};
		const secondRequest = async (payloads: 'full' | 'verbatim') => {
			const endpoint = answering(callingAdd);
			const policy = { ...contextWith(endpoint).tracePolicy, payloads };
			const first = await takeModelTurn(opening, contextWith(endpoint, { tracePolicy: policy }));
			const next = { ...answered, trace: first.conversation.trace };
			const second = await takeModelTurn(next, contextWith(endpoint, { tracePolicy: policy }));
			return { entry: second.conversation.trace[2], sent: endpoint.requests[1].body };
		};
		const compact = await secondRequest('full');
		expect(compact.entry.compacted).toEqual(['messages', 'tools']);
		expect(compact.entry.payload).toMatchObject({
			messages: { sameAsRound: 1, first: 1, then: (compact.sent as any).messages.slice(1) },
		});
		const verbatim = await secondRequest('verbatim');
		expect(verbatim.entry.compacted).toBeUndefined();
		expect(verbatim.entry.payload).toEqual(verbatim.sent);
	});

	it('holds a later request to the payload limit by what it stores: the compact form, while the whole body is larger', async () => {
		const long = 'x'.repeat(1_500);
		const endpoint = answering(callingAdd);
		const context = contextWith(endpoint, {
			tracePolicy: { ...contextWith(endpoint).tracePolicy, maxPayloadBytes: 2_500 },
		});
		const first = await takeModelTurn(
			{ ...opening, messages: [{ role: 'user', content: long }] },
			context,
		);
		const next: Conversation = {
			...first.conversation,
			toolCalls: [],
			messages: [...first.conversation.messages.slice(0, 1), { role: 'user', content: long }],
		};
		const second = await takeModelTurn(next, context);
		const request = second.conversation.trace[2];
		expect(request.bytes).toBeGreaterThan(2_500);
		expect(request.payloadOmitted).toBeUndefined();
		expect(request.compacted).toEqual(['messages', 'tools']);
		expect(readTrace(second.conversation.trace)[2].payload).toEqual(endpoint.requests[1].body);
	});

	it('drops the nulls strict mode added from calls to tools sent strict, and only those', async () => {
		const strict = { ...settings, strict: true };
		const { conversation } = await takeModelTurn(
			opening,
			contextWith(answering(callingAdd), { settings: strict }),
		);
		expect(conversation.toolCalls[0].arguments).toEqual({ a: 2 });
	});

	it('stops at Max Rounds with the reason, without asking the endpoint', async () => {
		const endpoint = answering(callingAdd);
		const taken = await takeModelTurn(
			{ ...opening, rounds: 3 },
			contextWith(endpoint, { maxRounds: 3 }),
		);
		expect(taken.turn).toBeUndefined();
		expect(taken.conversation.stopReason).toBe('Stopped before round 4: Max Rounds is 3');
		expect(endpoint.requests).toHaveLength(0);
	});

	it('refuses a turn while calls are pending, naming them, without asking the endpoint', async () => {
		const endpoint = answering(callingAdd);
		const pending = {
			...opening,
			toolCalls: [{ id: 'call_1', name: 'add', arguments: { a: 2 }, rawArguments: '{"a":2}' }],
		};
		const error = await takeModelTurn(pending, contextWith(endpoint)).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(PendingCallsError);
		expect((error as PendingCallsError).pending).toEqual(['add']);
		expect((error as Error).message).toBe('1 tool calls are still pending (add)');
		expect(endpoint.requests).toHaveLength(0);
	});

	it('refuses a named tool choice the conversation has no tool for, listing the tools it has', async () => {
		const endpoint = answering(callingAdd);
		const named = { ...settings, toolChoice: { name: 'subtract' } };
		const error = await takeModelTurn(opening, contextWith(endpoint, { settings: named })).catch(
			(e: unknown) => e,
		);
		expect(error).toBeInstanceOf(UnknownToolChoiceError);
		expect(error).toMatchObject({ toolChoice: 'subtract', tools: ['add'] });
		expect(endpoint.requests).toHaveLength(0);
	});

	it('refuses Tool Choice Required on a conversation without tools, which vendors would answer in text', async () => {
		const endpoint = answering(callingAdd);
		const required = { ...settings, toolChoice: 'required' as const };
		const error = await takeModelTurn(
			{ ...opening, tools: [] },
			contextWith(endpoint, { settings: required }),
		).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(NoToolToChooseError);
		expect((error as Error).message).toMatch(
			/^Tool Choice is Required, but the conversation has no tools/,
		);
		expect(endpoint.requests).toHaveLength(0);
	});

	it('refuses a result whose call no earlier message made (a history cut short), naming it', async () => {
		const endpoint = answering(callingAdd);
		const cut: Conversation = {
			...opening,
			messages: [
				{ role: 'tool', tool_call_id: 'c1', content: '5' },
				{ role: 'user', content: 'go on' },
			],
		};
		const error = await takeModelTurn(cut, contextWith(endpoint)).catch((e: unknown) => e);
		expect(error).toBeInstanceOf(ResultWithoutCallError);
		expect((error as Error).message).toMatch(
			/^Message 1 \(tool\) answers the call 'c1', which no assistant message before it made/,
		);
		expect(endpoint.requests).toHaveLength(0);
	});

	it('takes the same turn from a recording of it, traced as replayed, and stops where the request differs', async () => {
		const live = await takeModelTurn(opening, contextWith(answering(callingAdd)));
		const recording = new Recording(live.conversation.trace, 'Model');
		const replay = contextWith(recordedModelEndpoint(async () => recording));

		const replayed = await takeModelTurn(opening, replay);
		expect(replayed.conversation.messages).toEqual(live.conversation.messages);
		expect(replayed.conversation.toolCalls).toEqual(live.conversation.toolCalls);
		const [request, response] = replayed.conversation.trace;
		expect(request).toMatchObject({ step: 'model.request', replayed: true });
		expect(request).not.toHaveProperty('url');
		expect(response).toMatchObject({ step: 'model.response', replayed: true });
		expect(response).not.toHaveProperty('attempts');

		const changed = { ...opening, messages: [{ role: 'user' as const, content: 'Add 3' }] };
		const drift = await takeModelTurn(changed, replay).catch((e: unknown) => e);
		expect(drift).toBeInstanceOf(ReplayDriftError);
		expect((drift as Error).message).toMatch(
			/^The run drifted from the recording at round 1, step model.request: messages\.0\.content/,
		);
	});

	it('replays a trace whose round numbers start again (a new question counted from round 1) in its order', async () => {
		const answeringWith = (content: string) => ({
			...callingAdd,
			choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content } }],
		});
		const question: Conversation = {
			...opening,
			messages: [{ role: 'user', content: 'What time is it?' }],
		};
		// Recorded: the same question asked twice, the rounds counted anew, answered differently.
		const first = await takeModelTurn(question, contextWith(answering(answeringWith('10:00'))));
		const again = { ...question, rounds: 0, trace: first.conversation.trace };
		const second = await takeModelTurn(again, contextWith(answering(answeringWith('11:00'))));
		const recording = new Recording(readTrace(second.conversation.trace), 'Model');
		const replay = contextWith(recordedModelEndpoint(async () => recording));

		const replayedFirst = await takeModelTurn(question, replay);
		expect(replayedFirst.conversation.messages.at(-1)?.content).toBe('10:00');
		const replayedAgain = await takeModelTurn(
			{ ...question, rounds: 0, trace: replayedFirst.conversation.trace },
			replay,
		);
		expect(replayedAgain.conversation.messages.at(-1)?.content).toBe('11:00');
		const third = await takeModelTurn(
			{ ...question, rounds: 0, trace: replayedAgain.conversation.trace },
			replay,
		).catch((error: unknown) => error);
		expect((third as Error).message).toBe(
			'The run drifted from the recording at round 1, step model.request: the recording has this step 2 time(s) at this round, and this run takes it once more',
		);
	});
});
