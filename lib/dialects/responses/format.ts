import { openaiResponseFormat, type OpenAIResponseFormat } from '../openai/format';
import { reasoningEffort } from '../settings';
import type { ModelSettings } from '../types';

/**
 * The Responses API's fields for the turn's shape: `text.format` for a structured answer (the schema
 * as Chat Completions takes it, laid flat), `reasoning` with its effort and a summary for the trace,
 * and prompt_cache_key as Chat Completions sends it.
 * @see https://platform.openai.com/docs/api-reference/responses/create#responses-create-text
 */
export function responsesFormat(settings: ModelSettings): {
	prompt_cache_key?: string;
	text?: { format: OpenAIResponseFormat };
	reasoning?: { effort: string; summary: 'auto' };
} {
	return {
		...(settings.responseFormat && {
			text: { format: openaiResponseFormat(settings.responseFormat) },
		}),
		...(settings.reasoning && {
			reasoning: { effort: reasoningEffort(settings.reasoning), summary: 'auto' as const },
		}),
		...(settings.promptCacheKey && { prompt_cache_key: settings.promptCacheKey }),
	};
}
