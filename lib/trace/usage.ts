import type { ConversationUsage, TokenCounts } from '../conversation/types';
import { DIALECTS } from '../dialects/registry';
import type { ToolNameMap } from '../dialects/types';
import { NO_TOKENS } from '../dialects/usage';
import { isRecord } from '../json/value';
import type { PriceSource, TurnCost } from '../usage/prices';
import { NO_USAGE, withModelCall, withToolCalls } from '../usage/totals';
import type { RecordedEntry } from './read';

/** One model call's usage as its trace entry records it. */
export interface RoundUsage {
	round: number;
	model?: string;
	tokens: TokenCounts;
	cost: TurnCost;
	durationMs?: number;
}

/** What a trace tells of the conversation's usage: each model call, the totals, and the time. */
export interface TraceUsage {
	rounds: RoundUsage[];
	totals: ConversationUsage;
	/** The sources of the prices, in the order met (a conversation may change provider). */
	priceSources: string[];
	/** The first entry's start; from it to the last entry's end is `elapsedMs`. */
	startedAt?: string;
	elapsedMs: number;
	/** Time in model calls, and in tool calls sent to a server. */
	modelMs: number;
	toolMs: number;
}

const SAME_NAMES: ToolNameMap = { toVendor: (name) => name, fromVendor: (name) => name };

/**
 * The usage a trace records, added up as the nodes add it on the item. An entry written before
 * traces held neutral counts has them read again from its usage by its dialect; its cost is unknown.
 */
export function usageOfTrace(trace: readonly RecordedEntry[]): TraceUsage {
	const rounds: RoundUsage[] = [];
	const priceSources: string[] = [];
	let totals = NO_USAGE;
	let modelMs = 0;
	let toolMs = 0;
	for (const entry of trace) {
		if (entry.step === 'model.response') {
			const call = roundUsage(entry);
			rounds.push(call);
			totals = withModelCall(totals, call.tokens, call.cost);
			modelMs += entry.durationMs ?? 0;
			if (call.cost.cost !== null && !priceSources.includes(call.cost.price.source))
				priceSources.push(call.cost.price.source);
		}
		if (entry.step === 'tools.call.request') totals = withToolCalls(totals, 1);
		if (entry.step === 'tools.call.result' && !entry.replayed) toolMs += entry.durationMs ?? 0;
	}
	const { first, last } = timeSpan(trace);
	return {
		rounds,
		totals,
		priceSources,
		...(first !== undefined && { startedAt: new Date(first).toISOString() }),
		elapsedMs: first === undefined ? 0 : last - first,
		modelMs,
		toolMs,
	};
}

/** The earliest start and the latest end of the entries; a loop, as spreading a long trace overflows the stack. */
function timeSpan(trace: readonly RecordedEntry[]): { first?: number; last: number } {
	let first: number | undefined;
	let last = 0;
	for (const entry of trace) {
		const at = Date.parse(entry.at);
		if (!Number.isFinite(at)) continue;
		first = first === undefined ? at : Math.min(first, at);
		last = Math.max(last, at + (entry.durationMs ?? 0));
	}
	return { first, last };
}

function roundUsage(entry: RecordedEntry): RoundUsage {
	const { tokens, model } = isRecord(entry.tokens)
		? { tokens: entry.tokens as unknown as TokenCounts, model: entry.model }
		: readAgain(entry);
	return {
		round: entry.round ?? 0,
		...(typeof model === 'string' && { model }),
		tokens,
		cost: recordedCost(entry),
		...(entry.durationMs !== undefined && { durationMs: entry.durationMs }),
	};
}

/** The counts and model of an entry written before it held them: its payload read by its dialect. */
function readAgain(entry: RecordedEntry): { tokens: TokenCounts; model?: string } {
	const dialect = DIALECTS[entry.dialect as keyof typeof DIALECTS];
	if (!dialect || entry.payload === undefined) return { tokens: NO_TOKENS };
	try {
		return dialect.parseResponse(entry.payload, SAME_NAMES);
	} catch {
		return { tokens: NO_TOKENS };
	}
}

function recordedCost(entry: RecordedEntry): TurnCost {
	if (typeof entry.cost === 'number' && isRecord(entry.price))
		return { cost: entry.cost, price: entry.price as unknown as PriceSource };
	const reason =
		typeof entry.costUnknown === 'string'
			? entry.costUnknown
			: 'the trace does not record its cost';
	return { cost: null, costUnknown: reason };
}

/** The usage summary as one flat row, for a table or a sheet: what the Tool Call Trace node outputs. */
export function usageRow(usage: TraceUsage) {
	const { totals } = usage;
	return {
		rounds: usage.rounds.reduce((highest, { round }) => Math.max(highest, round), 0),
		modelCalls: totals.modelCalls,
		toolCalls: totals.toolCalls,
		inputTokens: totals.tokens.input,
		outputTokens: totals.tokens.output,
		cacheReadTokens: totals.tokens.cacheRead,
		cacheWriteTokens: totals.tokens.cacheWrite,
		reasoningTokens: totals.tokens.reasoning,
		unreportedCalls: totals.unreportedCalls,
		cost: totals.cost,
		...(totals.costUnknown && { costUnknown: totals.costUnknown }),
		priceSources: usage.priceSources,
		...(usage.startedAt && { startedAt: usage.startedAt }),
		elapsedMs: usage.elapsedMs,
		modelMs: usage.modelMs,
		toolMs: usage.toolMs,
	};
}
