import type { ConversationUsage } from '../conversation/types';
import { NO_USAGE, tokensUsed } from './totals';

/** Limits on one conversation, checked before each model call; each applies when above 0. */
export interface Budget {
	/** Input and output tokens together. */
	maxTokens?: number;
	/** In US dollars. */
	maxCost?: number;
	/** Tool calls sent to a server. */
	maxToolCalls?: number;
}

/**
 * Why the conversation may make no further model call, or undefined while it is within its
 * budget. A budget whose total is unknown (the API reported no counts, a model has no price)
 * cannot be kept, so it stops the conversation too, saying why: the limit is there to be sure.
 */
export function budgetExceeded(
	usage: ConversationUsage | undefined,
	budget: Budget,
): string | undefined {
	const totals = usage ?? NO_USAGE;
	const { maxTokens, maxCost, maxToolCalls } = budget;
	if (maxToolCalls && totals.toolCalls >= maxToolCalls)
		return `Max Tool Calls per Conversation is ${maxToolCalls}, and it has made ${totals.toolCalls}`;
	if (maxTokens && totals.modelCalls > 0) {
		const used = tokensUsed(totals.tokens);
		if (totals.unreportedCalls > 0 || used === null)
			return `Max Tokens per Conversation is ${count(maxTokens)}, but the model API reported no token counts for ${totals.unreportedCalls} of ${totals.modelCalls} model calls, so the budget cannot be kept`;
		if (used >= maxTokens)
			return `Max Tokens per Conversation is ${count(maxTokens)}, and it has used ${count(used)}`;
	}
	if (maxCost && totals.modelCalls > 0) {
		if (totals.cost === null)
			return `Max Cost per Conversation is ${usd(maxCost)}, but its cost is not known (${totals.costUnknown}), so the budget cannot be kept`;
		if (totals.cost >= maxCost)
			return `Max Cost per Conversation is ${usd(maxCost)}, and it has cost ${usd(totals.cost)}`;
	}
	return undefined;
}

/** The totals in a sentence: "3 model calls, 2 tool calls, 1,234 input and 56 output tokens, $0.0012". */
export function describeUsage(usage: ConversationUsage): string {
	const { tokens } = usage;
	const parts = [
		`${count(usage.modelCalls)} model call${usage.modelCalls === 1 ? '' : 's'}`,
		`${count(usage.toolCalls)} tool call${usage.toolCalls === 1 ? '' : 's'}`,
		`${tokenCount(tokens.input)} input and ${tokenCount(tokens.output)} output tokens`,
		usage.cost === null ? 'cost unknown' : usd(usage.cost),
	];
	return parts.join(', ');
}

function tokenCount(value: number | null): string {
	return value === null ? 'unreported' : count(value);
}

function count(value: number): string {
	return value.toLocaleString('en-US');
}

/** Dollars to the cent from one up, to four significant digits below: $12.35, $0.50, $0.001234. */
export function usd(amount: number): string {
	if (amount >= 1 || amount <= 0) return `$${amount.toFixed(2)}`;
	const digits = Math.min(12, 3 - Math.floor(Math.log10(amount)));
	// Trailing zeros go, but for the cents: $0.50, $0.015.
	return `$${amount.toFixed(digits).replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}
