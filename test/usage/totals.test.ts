import type { TokenCounts } from '../../lib/conversation/types';
import { readConversation } from '../../lib/conversation/read';
import { budgetExceeded, describeUsage, usd } from '../../lib/usage/budget';
import { NO_USAGE, withModelCall, withToolCalls } from '../../lib/usage/totals';

const tokens = (counts: Partial<TokenCounts>): TokenCounts => ({
	input: null,
	output: null,
	cacheRead: null,
	cacheWrite: null,
	reasoning: null,
	...counts,
});
const priced = (cost: number) => ({
	cost,
	price: { source: 'node' as const, input: 1, output: 1 },
});

describe('withModelCall', () => {
	it('adds each kind the call reports, and keeps a kind null until one does', () => {
		const first = withModelCall(undefined, tokens({ input: 100, output: 10 }), priced(0.5));
		const second = withModelCall(
			first,
			tokens({ input: 200, output: 20, cacheRead: 150, reasoning: 5 }),
			priced(0.25),
		);
		expect(second).toEqual({
			modelCalls: 2,
			toolCalls: 0,
			tokens: { input: 300, output: 30, cacheRead: 150, cacheWrite: null, reasoning: 5 },
			unreportedCalls: 0,
			cost: 0.75,
		});
	});

	it('counts a call that reported nothing as unreported, not as zero tokens', () => {
		const totals = withModelCall(NO_USAGE, tokens({}), priced(0));
		expect(totals.tokens).toEqual(tokens({}));
		expect(totals.unreportedCalls).toBe(1);
	});

	it('makes the cost null from the first call that could not be priced on, naming that call', () => {
		let totals = withModelCall(undefined, tokens({ input: 1, output: 1 }), priced(0.1));
		totals = withModelCall(totals, tokens({ input: 1, output: 1 }), {
			cost: null,
			costUnknown: 'no price for x',
		});
		totals = withModelCall(totals, tokens({ input: 1, output: 1 }), {
			cost: null,
			costUnknown: 'no price for y',
		});
		totals = withModelCall(totals, tokens({ input: 1, output: 1 }), priced(0.1));
		expect(totals).toMatchObject({ cost: null, costUnknown: 'model call 2: no price for x' });
	});

	it('sums dollars without binary noise', () => {
		let totals = NO_USAGE;
		for (let call = 0; call < 3; call++)
			totals = withModelCall(totals, tokens({ input: 1, output: 1 }), priced(0.1));
		expect(totals.cost).toBe(0.3);
	});
});

describe('withToolCalls', () => {
	it('adds calls to the totals, starting them when the conversation had none', () => {
		expect(withToolCalls(undefined, 2)).toEqual({ ...NO_USAGE, toolCalls: 2 });
		expect(withToolCalls({ ...NO_USAGE, toolCalls: 3 }, 2).toolCalls).toBe(5);
	});
});

describe('budgetExceeded', () => {
	const used = {
		...NO_USAGE,
		modelCalls: 2,
		toolCalls: 3,
		tokens: tokens({ input: 900, output: 100 }),
		cost: 0.02,
	};

	it('holds nothing against a conversation within its budget, or a budget of 0 (no limit)', () => {
		expect(budgetExceeded(used, { maxTokens: 1001, maxCost: 0.021, maxToolCalls: 4 })).toBe(
			undefined,
		);
		expect(budgetExceeded(used, { maxTokens: 0, maxCost: 0, maxToolCalls: 0 })).toBe(undefined);
		expect(budgetExceeded(undefined, { maxTokens: 1, maxCost: 0.01, maxToolCalls: 1 })).toBe(
			undefined,
		);
	});

	it('names the budget reached and what was used', () => {
		expect(budgetExceeded(used, { maxToolCalls: 3 })).toBe(
			'Max Tool Calls per Conversation is 3, and it has made 3',
		);
		expect(budgetExceeded(used, { maxTokens: 1000 })).toBe(
			'Max Tokens per Conversation is 1,000, and it has used 1,000',
		);
		expect(budgetExceeded(used, { maxCost: 0.015 })).toBe(
			'Max Cost per Conversation is $0.015, and it has cost $0.02',
		);
	});

	it('stops a conversation whose budget cannot be checked, saying why', () => {
		const unknownCost = { ...used, cost: null, costUnknown: 'model call 1: no price' };
		expect(budgetExceeded(unknownCost, { maxCost: 1 })).toBe(
			'Max Cost per Conversation is $1.00, but its cost is not known (model call 1: no price), so the budget cannot be kept',
		);
		const unreported = { ...used, unreportedCalls: 1 };
		expect(budgetExceeded(unreported, { maxTokens: 5000 })).toBe(
			'Max Tokens per Conversation is 5,000, but the model API reported no token counts for 1 of 2 model calls, so the budget cannot be kept',
		);
		// Unknown costs stop nothing when no cost budget is set.
		expect(budgetExceeded(unknownCost, { maxTokens: 5000 })).toBe(undefined);
	});
});

describe('describeUsage and usd', () => {
	it('says the totals in a sentence', () => {
		expect(
			describeUsage({
				...NO_USAGE,
				modelCalls: 1,
				toolCalls: 12,
				tokens: tokens({ input: 12345, output: null }),
				cost: null,
			}),
		).toBe('1 model call, 12 tool calls, 12,345 input and unreported output tokens, cost unknown');
	});

	it('writes dollars to the cent from one up, to four significant digits below', () => {
		expect([12.345, 1, 0, 0.5, 0.0011234, 0.0000684, 0.000000012].map(usd)).toEqual([
			'$12.35',
			'$1.00',
			'$0.00',
			'$0.50',
			'$0.001123',
			'$0.0000684',
			'$0.000000012',
		]);
	});
});

describe("the item's usage", () => {
	const item = { messages: [], tools: [], toolCalls: [], trace: [] };

	it('is read as it is', () => {
		const usage = { ...NO_USAGE, modelCalls: 2, cost: null, costUnknown: 'why' };
		expect(readConversation({ ...item, usage }).usage).toEqual(usage);
	});

	it.each<[unknown, string]>([
		[
			'lots',
			"The item's 'usage' must be the conversation's totals, an object with 'tokens', but it is a string",
		],
		[
			{ modelCalls: 1 },
			"The item's 'usage' must be the conversation's totals, an object with 'tokens', but it is an object without them",
		],
		[
			{ ...NO_USAGE, toolCalls: -1 },
			"The item's 'usage'.toolCalls must be a whole number from 0, but it is -1",
		],
		[
			{ ...NO_USAGE, unreportedCalls: undefined },
			"The item's 'usage'.unreportedCalls must be a whole number from 0, but it is missing",
		],
		[
			{ ...NO_USAGE, tokens: tokens({ input: '12' as never }) },
			`The item's 'usage'.tokens.input must be a whole number from 0 or null, but it is "12"`,
		],
		[
			{ ...NO_USAGE, cost: '0.1' },
			`The item's 'usage'.cost must be a number from 0 or null, but it is "0.1"`,
		],
	])('refuses totals a budget would misread: %j', (usage, message) => {
		expect(() => readConversation({ ...item, usage })).toThrow(message);
	});
});
