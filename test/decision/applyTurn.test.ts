import { applyModelTurn } from '../../lib/decision/applyTurn';
import type { Conversation } from '../../lib/conversation/types';
import type { ModelTurn } from '../../lib/dialects/types';

const turnCalling = (...ids: string[]): ModelTurn => ({
	message: {
		role: 'assistant',
		content: null,
		tool_calls: ids.map((id) => ({
			id,
			type: 'function',
			function: { name: 'echo', arguments: '{}' },
		})),
	},
	toolCalls: ids.map((id) => ({ id, name: 'echo', arguments: {}, rawArguments: '{}' })),
	finish: 'tool_calls',
	finishReason: 'STOP',
	tokens: { input: 12, output: 3, cacheRead: null, cacheWrite: null, reasoning: null },
});
const unpriced = { cost: null, costUnknown: 'no price' } as const;

const afterOneRound: Conversation = {
	messages: [
		{ role: 'user', content: 'go' },
		{
			role: 'assistant',
			content: null,
			tool_calls: [{ id: 'call_0', type: 'function', function: { name: 'echo', arguments: '{}' } }],
		},
		{ role: 'tool', tool_call_id: 'call_0', content: 'ok' },
	],
	tools: [{ name: 'echo', inputSchema: { type: 'object' } }],
	toolCalls: [],
	trace: [],
	rounds: 1,
};

describe('applyModelTurn', () => {
	it('takes a turn of only what the node does not run for no answer, naming each in stopReason', () => {
		const turn: ModelTurn = {
			...turnCalling(),
			message: { role: 'assistant', content: null },
			finish: 'other',
			finishReason: 'completed',
			unanswered: ["custom_tool_call 'write_sql' (call_1)", 'local_shell_call (call_2)'],
		};
		const next = applyModelTurn(afterOneRound, turn, new Set(), unpriced);
		expect(next.answer).toBeUndefined();
		expect(next.toolCalls).toEqual([]);
		expect(next.stopReason).toBe(
			"The model asked for what this node does not run, and gave no answer: custom_tool_call 'write_sql' (call_1), local_shell_call (call_2). Offer only function tools, or run these outside the loop.",
		);
	});

	it('keeps every call id unique in the conversation: a made-up id a vendor repeats gets the round as a suffix', () => {
		// Vendors without ids get call_0, call_1… every turn; Anthropic refuses a history with a repeated id.
		const next = applyModelTurn(
			afterOneRound,
			turnCalling('call_0', 'call_1'),
			new Set(),
			unpriced,
		);
		expect(next.toolCalls.map((call) => call.id)).toEqual(['call_0_r2', 'call_1']);
		const last = next.messages.at(-1);
		expect(last?.role === 'assistant' && last.tool_calls?.map((call) => call.id)).toEqual([
			'call_0_r2',
			'call_1',
		]);
		expect(next.rounds).toBe(2);
	});

	it("drops a person's decisions: they were for an earlier turn's calls", () => {
		const decided = {
			...afterOneRound,
			approval: { requested: [], decisions: [{ callId: 'toolu_01A', approved: true }] },
		} as Conversation;
		const next = applyModelTurn(decided, turnCalling('toolu_01A'), new Set(), unpriced);
		expect(next).not.toHaveProperty('approval');
		expect(next.toolCalls.map((call) => call.id)).toEqual(['toolu_01A']);
	});

	it('leaves ids that are already unique as the vendor sent them', () => {
		const next = applyModelTurn(
			afterOneRound,
			turnCalling('toolu_01A', 'toolu_01B'),
			new Set(),
			unpriced,
		);
		expect(next.toolCalls.map((call) => call.id)).toEqual(['toolu_01A', 'toolu_01B']);
	});
});
