import { isRecord } from '../../json/value';
import { NO_TOKENS, plus, usageCounts, type UsageReading } from '../usage';

/**
 * Gemini's usageMetadata to the neutral counts. promptTokenCount holds the cached content
 * (cachedContentTokenCount); the prompt of its own tools' results (toolUsePromptTokenCount) is
 * input too. Thoughts are counted apart from the candidates' tokens and billed as output, so the
 * neutral output is their sum. Gemini writes its JSON from protocol buffers, which leave out a
 * count of zero: within usageMetadata an absent count is 0. It reports no cache writes (a cache
 * is made by its own request). Streamed, every event repeats the counts so far; the last stands.
 * @see https://ai.google.dev/api/generate-content#UsageMetadata
 */
export function geminiUsage(usage: unknown): UsageReading {
	const { count, warnings } = usageCounts(usage, 'usageMetadata');
	if (!isRecord(usage)) return { tokens: NO_TOKENS, warnings };
	// A count of the wrong type is left out (null), not taken for an absent zero.
	const countOrZero = (key: string) => (usage[key] === undefined ? 0 : count(key));
	const thoughts = countOrZero('thoughtsTokenCount');
	const tokens = {
		input: plus(countOrZero('promptTokenCount'), countOrZero('toolUsePromptTokenCount')),
		output: plus(countOrZero('candidatesTokenCount'), thoughts),
		cacheRead: countOrZero('cachedContentTokenCount'),
		cacheWrite: null,
		reasoning: thoughts,
	};
	return { tokens, warnings };
}
