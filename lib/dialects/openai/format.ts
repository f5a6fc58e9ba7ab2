import type { Message } from '../../conversation/types';
import { reasoningEffort, strictAnswerSchema } from '../settings';
import type { ModelSettings, ResponseFormat } from '../types';

/** Chat Completions' response_format and the Responses API's text.format, which take the same schema. */
export type OpenAIJsonSchemaFormat = {
	type: 'json_schema';
	name: string;
	schema: Record<string, unknown>;
	strict: boolean;
};
export type OpenAIResponseFormat = { type: 'json_object' } | OpenAIJsonSchemaFormat;

/**
 * The structured answer as OpenAI takes it: JSON mode, or a JSON Schema, strict where strict mode
 * can hold the schema (its object root and rules; `strict.ts` converts it), else as it is.
 * @see https://platform.openai.com/docs/guides/structured-outputs
 */
export function openaiResponseFormat(format: ResponseFormat): OpenAIResponseFormat {
	if (format.type === 'json') return { type: 'json_object' };
	const strict = strictAnswerSchema(format);
	return strict?.ok
		? { type: 'json_schema', name: format.name, schema: strict.schema, strict: true }
		: { type: 'json_schema', name: format.name, schema: format.schema, strict: false };
}

/**
 * JSON mode is refused unless a message says "json" ("'messages' must contain the word 'json' in
 * some form"): a system message asking for JSON is added when none does.
 */
const JSON_INSTRUCTION = 'Answer with JSON.';

export function withJsonInstruction(
	messages: readonly Message[],
	format?: ResponseFormat,
): Message[] {
	if (format?.type !== 'json') return [...messages];
	const said = messages.some(
		(message) => typeof message.content === 'string' && /json/i.test(message.content),
	);
	return said ? [...messages] : [{ role: 'system', content: JSON_INSTRUCTION }, ...messages];
}

/**
 * Chat Completions' fields for the turn's shape: response_format, reasoning_effort, and
 * prompt_cache_key, which keeps one conversation's requests on one cache (OpenAI caches prompts
 * itself; the key only routes them).
 * @see https://platform.openai.com/docs/guides/prompt-caching
 */
export function openaiFormat(settings: ModelSettings): {
	prompt_cache_key?: string;
	response_format?:
		| { type: 'json_object' }
		| { type: 'json_schema'; json_schema: Omit<OpenAIJsonSchemaFormat, 'type'> };
	reasoning_effort?: string;
} {
	const format = settings.responseFormat && openaiResponseFormat(settings.responseFormat);
	return {
		...(format && {
			response_format:
				format.type === 'json_object'
					? format
					: {
							type: 'json_schema',
							json_schema: { name: format.name, schema: format.schema, strict: format.strict },
						},
		}),
		...(settings.reasoning && { reasoning_effort: reasoningEffort(settings.reasoning) }),
		...(settings.promptCacheKey && { prompt_cache_key: settings.promptCacheKey }),
	};
}
