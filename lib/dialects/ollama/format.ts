import type { ModelSettings } from '../types';

/**
 * The turn's shape the way Ollama takes it: `format` is "json" or the answer's JSON Schema (Ollama
 * constrains its output to it); `think` turns reasoning on, as a level for the models that take one
 * (gpt-oss: low, medium, high) and true for the others, so the level is sent only when an effort is
 * asked for. Ollama keeps its prompt cache itself: nothing to send for caching.
 * @see https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion
 */
export function ollamaFormat(settings: ModelSettings): {
	format?: 'json' | Record<string, unknown>;
	think?: boolean | 'low' | 'medium' | 'high';
} {
	const { responseFormat, reasoning } = settings;
	const effort = reasoning?.effort;
	return {
		...(responseFormat && {
			format: responseFormat.type === 'jsonSchema' ? responseFormat.schema : ('json' as const),
		}),
		...(reasoning && { think: effort ? (effort === 'minimal' ? 'low' : effort) : true }),
	};
}
