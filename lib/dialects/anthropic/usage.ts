import { plus, usageCounts, type UsageReading } from '../usage';

/**
 * Anthropic's usage to the neutral counts. Its input_tokens are only the tokens after the last
 * cache breakpoint: the cache's reads and writes are counted apart, so the neutral input is their
 * sum. Thinking is in output_tokens, with no count of its own. Streamed, message_start brings the
 * input counts and message_delta the final output count (the stream assembler merges the two).
 * @see https://docs.anthropic.com/en/api/messages#response-usage
 */
export function anthropicUsage(usage: unknown): UsageReading {
	const { count, warnings } = usageCounts(usage, 'usage');
	const cacheRead = count('cache_read_input_tokens');
	const cacheWrite = count('cache_creation_input_tokens');
	const tokens = {
		input: plus(count('input_tokens'), cacheRead, cacheWrite),
		output: count('output_tokens'),
		cacheRead,
		cacheWrite,
		reasoning: null,
	};
	return { tokens, warnings };
}
