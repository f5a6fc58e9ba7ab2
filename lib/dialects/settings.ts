import type { JsonSchema, Tool } from '../conversation/types';
import { isRecord } from '../json/value';
import { toStrictSchema } from '../schema/strict';
import type { ModelSettings, NotStrict, Reasoning, ReasoningEffort, ResponseFormat } from './types';

/** Temperature and the token limit, each only when set; the limit under the vendor's name for it. */
export function sampling<TLimit extends string>(
	settings: ModelSettings,
	limit: TLimit,
): { temperature?: number } & { [key in TLimit]?: number } {
	return {
		...(settings.temperature !== undefined && { temperature: settings.temperature }),
		...(settings.maxTokens !== undefined && { [limit]: settings.maxTokens }),
	};
}

/** For vendors without strict mode: when strict was asked for, every tool, each with `reason`. */
export function notStrictAll(tools: readonly Tool[], strict: boolean, reason: string): NotStrict[] {
	return strict ? tools.map((tool) => ({ name: tool.name, reason })) : [];
}

/** A field of Additional Body Fields the node writes itself: refused by name, never overwritten. */
export class BodyFieldError extends Error {}

/**
 * The request body with Additional Body Fields merged in, for what the node does not model (`seed`,
 * `top_k`, safety settings…). Objects merge key by key (Gemini's `generationConfig.topK` beside the
 * temperature the node sets); a field in `owned` (the conversation, the tools, the model, streaming)
 * and any value the node already set are refused, naming the field.
 */
export function withBodyFields<TBody extends object>(
	body: TBody,
	fields: Record<string, unknown> | undefined,
	owned: readonly string[],
): TBody {
	if (!fields || Object.keys(fields).length === 0) return body;
	const ownedHere = Object.keys(fields).filter((key) => owned.includes(key));
	if (ownedHere.length > 0)
		throw new BodyFieldError(
			`Additional Body Fields sets ${ownedHere.map((key) => `'${key}'`).join(', ')}, which the node writes itself (the conversation, its tools, the model and streaming): remove ${ownedHere.length > 1 ? 'them' : 'it'} there, and set ${ownedHere.length > 1 ? 'them' : 'it'} through the node's own fields`,
		);
	return merged(body as Record<string, unknown>, fields, '') as TBody;
}

function merged(
	into: Record<string, unknown>,
	fields: Record<string, unknown>,
	path: string,
): Record<string, unknown> {
	const out = { ...into };
	for (const [key, value] of Object.entries(fields)) {
		const at = path === '' ? key : `${path}.${key}`;
		const held = out[key];
		if (held === undefined) out[key] = value;
		else if (isRecord(held) && isRecord(value)) out[key] = merged(held, value, at);
		else
			throw new BodyFieldError(
				`Additional Body Fields sets '${at}', which the node already sets to ${JSON.stringify(held)} from its options: change it there, or leave that option unset`,
			);
	}
	return out;
}

/**
 * Thinking budgets for an effort, where a vendor takes a budget (Anthropic, Gemini 2.5), and the
 * effort a budget stands for, where it takes an effort (OpenAI): README names them.
 */
const BUDGETS: Record<ReasoningEffort, number> = {
	minimal: 1024,
	low: 2048,
	medium: 8192,
	high: 16384,
};

export function reasoningBudget(reasoning: Reasoning): number {
	return reasoning.budgetTokens ?? BUDGETS[reasoning.effort ?? 'medium'];
}

export function reasoningEffort(reasoning: Reasoning): ReasoningEffort {
	if (reasoning.effort) return reasoning.effort;
	const budget = reasoning.budgetTokens ?? BUDGETS.medium;
	return budget <= BUDGETS.minimal
		? 'minimal'
		: budget <= BUDGETS.low
			? 'low'
			: budget <= BUDGETS.medium
				? 'medium'
				: 'high';
}

/** The JSON Schema a structured answer must match: the given one, or any JSON value. */
export function answerSchema(format: ResponseFormat): JsonSchema {
	return format.type === 'jsonSchema' ? format.schema : {};
}

/** The answer's schema in strict mode's form (strict.ts) where its root is an object, else undefined. */
export function strictAnswerSchema(
	format: ResponseFormat,
): ReturnType<typeof toStrictSchema> | undefined {
	return format.type === 'jsonSchema' && format.schema.type === 'object'
		? toStrictSchema(format.schema)
		: undefined;
}
