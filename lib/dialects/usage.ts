import type { TokenCounts } from '../conversation/types';
import { excerpt, isRecord } from '../json/value';

/** A vendor's usage in the neutral form, and what in it could not be read. */
export interface UsageReading {
	tokens: TokenCounts;
	/** Counts of the wrong type or below zero, each left out and named. */
	warnings: string[];
}

export const NO_TOKENS: TokenCounts = {
	input: null,
	output: null,
	cacheRead: null,
	cacheWrite: null,
	reasoning: null,
};

/**
 * Reads counts out of a vendor's usage object, named `root` in warnings ('' for counts at the top
 * of the body): a count is a whole number from 0. Absent or null is unreported (null); anything else (text, a fraction, a negative
 * number, an object) is left out with a warning, never a failed turn: a model's answer is worth
 * more than its token count.
 */
export function usageCounts(usage: unknown, root: string) {
	const warnings: string[] = [];
	const count = (...path: string[]): number | null => {
		let value: unknown = usage;
		for (const [depth, key] of path.entries()) {
			if (value === undefined || value === null) return null;
			if (!isRecord(value)) return wrong(path.slice(0, depth), value, 'an object of token counts');
			value = value[key];
		}
		if (value === undefined || value === null) return null;
		return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
			? value
			: wrong(path, value, 'a count of tokens');
	};
	const wrong = (path: string[], value: unknown, expected: string): null => {
		const at = [root, ...path].filter((key) => key !== '').join('.');
		const warning = `${at} is ${excerpt(value)}, not ${expected}: left out`;
		if (!warnings.includes(warning)) warnings.push(warning);
		return null;
	};
	return { count, warnings };
}

/** The sum of the parts reported; null when none is. */
export function sumOf(...parts: Array<number | null>): number | null {
	const reported = parts.filter((part): part is number => part !== null);
	return reported.length === 0 ? null : reported.reduce((sum, part) => sum + part, 0);
}

/** `whole` plus the parts reported beside it; null when the whole is not reported. */
export function plus(whole: number | null, ...parts: Array<number | null>): number | null {
	return whole === null ? null : whole + (sumOf(...parts) ?? 0);
}

/** The turn's `model`: the name the vendor gave the model that answered, when it gave one. */
export function modelName(name: unknown): { model?: string } {
	return typeof name === 'string' && name !== '' ? { model: name } : {};
}

/** The turn's keys for its usage: the neutral counts, and the warnings when there are any. */
export function usageOfTurn(reading: UsageReading) {
	return {
		tokens: reading.tokens,
		...(reading.warnings.length > 0 && { usageWarnings: reading.warnings }),
	};
}
