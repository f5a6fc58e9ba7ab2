import {
	continueConversation,
	estimatedTokens,
	readStoredTurns,
	SessionError,
	newTurn,
	turnRow,
	type ContextBudget,
	type StoredTurn,
} from '../../lib/memory/session';
import type { Conversation, Message } from '../../lib/conversation/types';

const NO_LIMIT: ContextBudget = { maxMessages: 0, maxTokens: 0, shortenToolResultsOver: 0 };

/** One turn with a tool call: the person asks, the model calls, the tool answers, the model answers. */
function turnWithCall(turn: number, result = `result ${turn}`): Message[] {
	return [
		{ role: 'user', content: `question ${turn}` },
		{
			role: 'assistant',
			content: null,
			tool_calls: [
				{ id: `call_${turn}`, type: 'function', function: { name: 'lookup', arguments: '{}' } },
			],
		},
		{ role: 'tool', tool_call_id: `call_${turn}`, name: 'lookup', content: result },
		{ role: 'assistant', content: `answer ${turn}` },
	];
}

const row = (turn: number, messages: Message[] = turnWithCall(turn), extra = {}) => ({
	id: turn * 10,
	sessionId: 's1',
	turn,
	messages: JSON.stringify(messages),
	createdAt: '2026-12-06T00:00:00.000Z',
	...extra,
});

describe('readStoredTurns', () => {
	it('reads rows in turn order, a new session (one empty item) as none', () => {
		expect(readStoredTurns([{}], 's1')).toEqual([]);
		const turns = readStoredTurns([row(2), row(1)], 's1');
		expect(turns.map((turn) => turn.turn)).toEqual([1, 2]);
		expect(turns[0].messages).toEqual(turnWithCall(1));
	});

	it('keeps both turns two messages at once stored under one number, in the order written', () => {
		const first = row(2, turnWithCall(2, 'first'), { id: 21 });
		const second = row(2, turnWithCall(2, 'second'), { id: 22 });
		const turns = readStoredTurns([second, row(1), first], 's1');
		expect(turns.map((turn) => (turn.messages[2] as { content: string }).content)).toEqual([
			'result 1',
			'first',
			'second',
		]);
	});

	it.each([
		[{ ...row(1), messages: '{not json' }, "Session 's1', turn 1: its messages are not JSON"],
		[{ ...row(1), messages: '{}' }, "Session 's1', turn 1: its messages must be a list"],
		[
			{ ...row(1), messages: JSON.stringify([{ role: 'bot', content: 'hi' }]) },
			'Session \'s1\', turn 1: Message 1 of its messages has the role "bot"',
		],
		[
			{ ...row(1), messages: JSON.stringify([{ role: 'tool', content: 'x' }]) },
			"Session 's1', turn 1: Message 1 of its messages (tool) names no 'tool_call_id'",
		],
		[{ ...row(1), turn: 'one' }, 'has the turn "one"; a turn is a whole number from 1'],
		[{ ...row(1), sessionId: 's2' }, "belongs to session 's2': the table's rows must be filtered"],
		['a string', "Session 's1': stored row 2 is a string, not a row"],
	])('refuses a row that breaks the contract, naming the session (case %#)', (bad, message) => {
		expect(() => readStoredTurns([row(2), bad], 's1')).toThrow(SessionError);
		expect(() => readStoredTurns([row(2), bad], 's1')).toThrow(message);
	});

	it('reads a turn number given as text, as a table or a sheet may hold it', () => {
		expect(readStoredTurns([{ ...row(3), turn: '3' }], 's1')[0].turn).toBe(3);
	});
});

describe('continueConversation', () => {
	const turns: StoredTurn[] = [1, 2, 3].map((turn) => ({ turn, messages: turnWithCall(turn) }));

	it('sends the system message, every turn as real tool messages, then the new message', () => {
		const { messages, newFrom, report } = continueConversation(turns, {
			system: 'Be brief.',
			message: 'and now?',
			budget: NO_LIMIT,
		});
		expect(messages).toEqual([
			{ role: 'system', content: 'Be brief.' },
			...turnWithCall(1),
			...turnWithCall(2),
			...turnWithCall(3),
			{ role: 'user', content: 'and now?' },
		]);
		expect(newFrom).toBe(13);
		expect(report).toEqual({
			turnsStored: 3,
			turnsKept: 3,
			messagesKept: 14,
			estimatedTokens: estimatedTokens(messages),
		});
	});

	it('leaves out the oldest whole turns first, never a call without its result', () => {
		const { messages, report } = continueConversation(turns, {
			system: '',
			message: 'next',
			budget: { ...NO_LIMIT, maxMessages: 10 },
		});
		expect(messages).toEqual([
			...turnWithCall(2),
			...turnWithCall(3),
			{ role: 'user', content: 'next' },
		]);
		expect(report.trimmed).toEqual({ turns: 1, messages: 4, reason: 'Max Messages is 10' });
		// Every call sent has its result, and every result its call.
		const calls = messages.flatMap((message) =>
			message.role === 'assistant' ? (message.tool_calls ?? []).map((call) => call.id) : [],
		);
		const results = messages.flatMap((message) =>
			message.role === 'tool' ? [message.tool_call_id] : [],
		);
		expect(results).toEqual(calls);
	});

	it('trims by estimated tokens, and keeps the new message even when it alone is over', () => {
		const long = 'x'.repeat(4000);
		const byTokens = continueConversation(turns, {
			system: '',
			message: long,
			budget: { ...NO_LIMIT, maxTokens: 500 },
		});
		expect(byTokens.messages).toEqual([{ role: 'user', content: long }]);
		expect(byTokens.report.trimmed).toEqual({
			turns: 3,
			messages: 12,
			reason: 'Max Tokens is 500 (estimated)',
		});
	});

	it('shortens earlier tool results to a stub that says so', () => {
		const big: StoredTurn[] = [{ turn: 1, messages: turnWithCall(1, 'y'.repeat(5000)) }];
		const { messages, report } = continueConversation(big, {
			system: '',
			message: 'again',
			budget: { ...NO_LIMIT, shortenToolResultsOver: 1000 },
		});
		expect(messages[2]).toEqual({
			role: 'tool',
			tool_call_id: 'call_1',
			name: 'lookup',
			content: expect.stringMatching(
				/^\[The result of lookup in an earlier message, 5000 characters, is left out/,
			),
		});
		expect(report.shortened).toEqual([{ turn: 1, tool: 'lookup', characters: 5000 }]);
	});

	it('names turns stored under one number', () => {
		const doubled = [...turns, { turn: 3, messages: turnWithCall(3) }];
		const { report } = continueConversation(doubled, {
			system: '',
			message: 'x',
			budget: NO_LIMIT,
		});
		expect(report.concurrentTurns).toEqual([3]);
	});
});

describe('newTurn and turnRow', () => {
	const loaded = continueConversation([{ turn: 1, messages: turnWithCall(1) }], {
		system: 'Be brief.',
		message: 'question 2',
		budget: NO_LIMIT,
	});
	const session = { id: 's1', turn: 2, newFrom: loaded.newFrom };
	const answered = (extra: Partial<Conversation> = {}): Conversation => ({
		messages: [...loaded.messages, ...turnWithCall(2).slice(1)],
		tools: [],
		toolCalls: [],
		trace: [],
		...extra,
	});

	it('stores what the message added, from the new message on', () => {
		const stored = turnRow(newTurn(answered(), session));
		expect(stored).toEqual({
			sessionId: 's1',
			turn: 2,
			messages: JSON.stringify(turnWithCall(2)),
			usage: '',
		});
		// Read back, it continues the conversation as it was.
		expect(
			readStoredTurns([row(1), { ...stored, id: 20 }], 's1').map((turn) => turn.messages),
		).toEqual([turnWithCall(1), turnWithCall(2)]);
	});

	it('leaves out attachments, whose binary data stays with the item', () => {
		const conversation = answered();
		const result = conversation.messages.at(-2) as Extract<Message, { role: 'tool' }>;
		result.attachments = [{ binaryProperty: 'data_0', kind: 'image', mimeType: 'image/png' }];
		expect(turnRow(newTurn(conversation, session)).messages).not.toContain('attachments');
	});

	it.each([
		[undefined, "The item has no 'session' (id, turn, newFrom)"],
		[{ id: 's1' }, "The item has no 'session' (id, turn, newFrom)"],
	])('refuses an item no Load began: %j', (mark, message) => {
		expect(() => turnRow(newTurn(answered(), mark))).toThrow(message);
	});

	it('refuses a conversation with calls still pending', () => {
		const pending = answered({
			toolCalls: [{ id: 'c', name: 'lookup', arguments: {}, rawArguments: '{}' }],
		});
		expect(() => turnRow(newTurn(pending, session))).toThrow(
			"Session 's1': the conversation still has 1 tool calls pending (lookup)",
		);
	});

	it('refuses when the new message is no longer where Load put it', () => {
		const cut = answered();
		cut.messages.splice(0, 2);
		expect(() => turnRow(newTurn(cut, session))).toThrow("is not the person's message");
	});
});

describe('usage across the messages of a session', () => {
	const usage = (modelCalls: number, input: number | null, cost: number | null) => ({
		modelCalls,
		toolCalls: modelCalls - 1,
		tokens: {
			input,
			output: input === null ? null : 5 * modelCalls,
			cacheRead: null,
			cacheWrite: null,
			reasoning: null,
		},
		unreportedCalls: input === null ? modelCalls : 0,
		cost,
		...(cost === null && { costUnknown: 'model call 1: no price for local-model' }),
	});

	it('sums the stored turns, those left out of the messages too, and stores what a message added', () => {
		const stored = [
			row(1, turnWithCall(1), { usage: JSON.stringify(usage(2, 100, 0.002)) }),
			row(2, turnWithCall(2), { usage: JSON.stringify(usage(1, 40, 0.001)) }),
		];
		const turns = readStoredTurns(stored, 's1');
		const loaded = continueConversation(turns, {
			system: '',
			message: 'three',
			budget: { ...NO_LIMIT, maxMessages: 5 },
		});
		expect(loaded.report.trimmed?.turns).toBe(1);
		expect(loaded.usage).toEqual({
			modelCalls: 3,
			toolCalls: 1,
			tokens: { input: 140, output: 15, cacheRead: null, cacheWrite: null, reasoning: null },
			unreportedCalls: 0,
			cost: 0.003,
		});
		// The message made one more model call: 10 input tokens, 5 output, $0.0005.
		const now = {
			...loaded.usage!,
			modelCalls: 4,
			tokens: { ...loaded.usage!.tokens, input: 150, output: 20 },
			cost: 0.0035,
		};
		const row3 = turnRow(
			newTurn(
				{
					messages: [...loaded.messages, { role: 'assistant', content: 'done' }],
					tools: [],
					toolCalls: [],
					trace: [],
					usage: now,
				},
				{ id: 's1', turn: 3, newFrom: loaded.newFrom, usageAtLoad: loaded.usage },
			),
		);
		expect(JSON.parse(row3.usage)).toEqual({
			modelCalls: 1,
			toolCalls: 0,
			tokens: { input: 10, output: 5, cacheRead: null, cacheWrite: null, reasoning: null },
			unreportedCalls: 0,
			cost: 0.0005,
		});
	});

	it('keeps a cost unknown once a turn could not be priced, saying why', () => {
		const turns = readStoredTurns(
			[
				row(1, turnWithCall(1), { usage: JSON.stringify(usage(1, 10, 0.001)) }),
				row(2, turnWithCall(2), { usage: JSON.stringify(usage(1, null, null)) }),
			],
			's1',
		);
		const { usage: total } = continueConversation(turns, {
			system: '',
			message: 'x',
			budget: NO_LIMIT,
		});
		expect(total).toMatchObject({
			modelCalls: 2,
			unreportedCalls: 1,
			cost: null,
			costUnknown: 'model call 1: no price for local-model',
		});
	});

	it('refuses a stored usage that breaks the contract, naming the session and turn', () => {
		const bad = row(1, turnWithCall(1), { usage: '{"modelCalls":-1,"tokens":{}}' });
		expect(() => readStoredTurns([bad], 's1')).toThrow(
			"Session 's1', turn 1: Its usage.modelCalls must be a whole number from 0",
		);
		expect(() => readStoredTurns([row(1, turnWithCall(1), { usage: '{oops' })], 's1')).toThrow(
			"Session 's1', turn 1: its usage is not JSON",
		);
	});
});
