import { usageCounts, type UsageReading } from '../usage';

/**
 * The Responses API's usage to the neutral counts: input_tokens holds the cached tokens and
 * output_tokens the reasoning ones, each detailed in a nested object. Streamed, usage comes with
 * the response of the last lifecycle event (response.completed, incomplete or failed).
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-usage
 */
export function responsesUsage(usage: unknown): UsageReading {
	const { count, warnings } = usageCounts(usage, 'usage');
	const tokens = {
		input: count('input_tokens'),
		output: count('output_tokens'),
		cacheRead: count('input_tokens_details', 'cached_tokens'),
		cacheWrite: null,
		reasoning: count('output_tokens_details', 'reasoning_tokens'),
	};
	return { tokens, warnings };
}
