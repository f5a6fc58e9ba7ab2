import { usageCounts, type UsageReading } from '../usage';

/**
 * Ollama's counts, at the top of its body, to the neutral ones: prompt_eval_count is the input, eval_count the output
 * (thinking included). It reports nothing of a cache or of reasoning apart, and leaves
 * prompt_eval_count out when the whole prompt came from its cache: the input is then unreported.
 * Streamed, the counts come on the last line (done: true).
 * @see https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion
 */
export function ollamaUsage(body: unknown): UsageReading {
	// The counts are keys of the body itself, among its others.
	const { count, warnings } = usageCounts(body, '');
	const tokens = {
		input: count('prompt_eval_count'),
		output: count('eval_count'),
		cacheRead: null,
		cacheWrite: null,
		reasoning: null,
	};
	return { tokens, warnings };
}
