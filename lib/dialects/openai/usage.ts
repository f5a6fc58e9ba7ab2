import { usageCounts, type UsageReading } from '../usage';

/**
 * Chat Completions' usage to the neutral counts. prompt_tokens holds the cached tokens and
 * completion_tokens the reasoning ones, as the neutral counts do. Compatible servers name the
 * cache their own way: DeepSeek's prompt_cache_hit_tokens, OpenRouter's cache_write_tokens.
 * Streamed, usage comes in a last chunk only when the request asks for it (stream_options.include_usage).
 * @see https://platform.openai.com/docs/api-reference/chat/object#chat/object-usage
 */
export function openaiUsage(usage: unknown): UsageReading {
	const { count, warnings } = usageCounts(usage, 'usage');
	const tokens = {
		input: count('prompt_tokens'),
		output: count('completion_tokens'),
		cacheRead: count('prompt_tokens_details', 'cached_tokens') ?? count('prompt_cache_hit_tokens'),
		cacheWrite: count('prompt_tokens_details', 'cache_write_tokens'),
		reasoning: count('completion_tokens_details', 'reasoning_tokens'),
	};
	return { tokens, warnings };
}
