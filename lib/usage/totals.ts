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
		tokens: tokensBy((kind) => add(totals.tokens[kind], tokens[kind])),
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

/** Token counts made kind by kind. */
function tokensBy(count: (kind: keyof TokenCounts) => number | null): TokenCounts {
	return Object.fromEntries(
		TOKEN_KINDS.map((kind) => [kind, count(kind)]),
	) as unknown as TokenCounts;
}

function add(total: number | null, count: number | null): number | null {
	return count === null ? total : (total ?? 0) + count;
}

/** Two totals together: what a chat session's stored messages used. */
export function addedUsage(a: ConversationUsage, b: ConversationUsage): ConversationUsage {
	const sum: ConversationUsage = {
		modelCalls: a.modelCalls + b.modelCalls,
		toolCalls: a.toolCalls + b.toolCalls,
		tokens: tokensBy((kind) => add(a.tokens[kind], b.tokens[kind])),
		unreportedCalls: a.unreportedCalls + b.unreportedCalls,
		cost: a.cost === null || b.cost === null ? null : dollars(a.cost + b.cost),
	};
	const unknown = a.costUnknown ?? b.costUnknown;
	return sum.cost === null && unknown !== undefined ? { ...sum, costUnknown: unknown } : sum;
}

/**
 * What was used since `before`: a chat message's own part of its session's totals. A cost unknown
 * before stays unknown (this part of it cannot be told apart).
 */
export function usageSince(now: ConversationUsage, before: ConversationUsage): ConversationUsage {
	const since: ConversationUsage = {
		modelCalls: now.modelCalls - before.modelCalls,
		toolCalls: now.toolCalls - before.toolCalls,
		tokens: tokensBy((kind) => {
			const [total, earlier] = [now.tokens[kind], before.tokens[kind]];
			return total === null ? null : total - (earlier ?? 0);
		}),
		unreportedCalls: now.unreportedCalls - before.unreportedCalls,
		cost: now.cost === null || before.cost === null ? null : dollars(now.cost - before.cost),
	};
	const unknown = before.costUnknown ?? now.costUnknown;
	return since.cost === null && unknown !== undefined ? { ...since, costUnknown: unknown } : since;
}
