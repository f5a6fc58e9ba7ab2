import type { ConversationUsage, TokenCounts } from '../conversation/types';
import { dollars, type TurnCost } from './prices';

const TOKEN_KINDS = ['input', 'output', 'cacheRead', 'cacheWrite', 'reasoning'] as const;

/** A conversation before its first call. */
export const NO_USAGE: ConversationUsage = {
	modelCalls: 0,
	toolCalls: 0,
	tokens: { input: null, output: null, cacheRead: null, cacheWrite: null, reasoning: null },
	unreportedCalls: 0,
	cost: 0,
};

/**
 * The totals after one more model call: its counts added kind by kind (a kind stays null until
 * a call reports it), its cost added, or the total cost null from the first call that could not
 * be priced on, since a sum that leaves a call out would understate it.
 */
export function withModelCall(
	usage: ConversationUsage | undefined,
	tokens: TokenCounts,
	turnCost: TurnCost,
): ConversationUsage {
	const totals = usage ?? NO_USAGE;
	const reported = TOKEN_KINDS.some((kind) => tokens[kind] !== null);
	const next: ConversationUsage = {
		...totals,
		modelCalls: totals.modelCalls + 1,
		tokens: Object.fromEntries(
			TOKEN_KINDS.map((kind) => [kind, add(totals.tokens[kind], tokens[kind])]),
		) as unknown as TokenCounts,
		unreportedCalls: totals.unreportedCalls + (reported ? 0 : 1),
		cost:
			totals.cost === null || turnCost.cost === null ? null : dollars(totals.cost + turnCost.cost),
	};
	if (totals.cost !== null && turnCost.cost === null)
		next.costUnknown = `model call ${next.modelCalls}: ${turnCost.costUnknown}`;
	return next;
}

/** The totals after tool calls were sent to a server. */
export function withToolCalls(
	usage: ConversationUsage | undefined,
	count: number,
): ConversationUsage {
	const totals = usage ?? NO_USAGE;
	return { ...totals, toolCalls: totals.toolCalls + count };
}

/** Input and output tokens together, as a budget counts them; null while neither is known. */
export function tokensUsed(tokens: TokenCounts): number | null {
	return tokens.input === null && tokens.output === null
		? null
		: (tokens.input ?? 0) + (tokens.output ?? 0);
}

function add(total: number | null, count: number | null): number | null {
	return count === null ? total : (total ?? 0) + count;
}
