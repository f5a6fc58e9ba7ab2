import type { Tool } from '../../conversation/types';
import { describeUnexpressed } from '../../schema/unexpressed';
import { toOpenAITools } from '../openai/tools';
import { notStrictAll } from '../settings';
import type { ToolNameMap, VendorTools } from '../types';
import { toOllamaSchema } from './schema';
import type { OllamaTool } from './wire';

const NO_STRICT_MODE = 'Ollama has no strict mode';

/**
 * Our tools as Ollama tool definitions: OpenAI's function tools (Ollama takes the same shape, with
 * no `strict`), each schema fitted to what Ollama can read (schema.ts). Asked for strict schemas,
 * every tool is named as sent without them, so the setting is not silently lost.
 */
export function toOllamaTools(
	tools: readonly Tool[],
	names: ToolNameMap,
	strict = false,
): VendorTools<OllamaTool> {
	const converted = toOpenAITools(tools, names).tools.map(
		({ function: { parameters, description, ...definition } }): OllamaTool => {
			const fitted = toOllamaSchema(parameters ?? {});
			// Ollama reads no description at the root, so what the root cannot say goes with the function's.
			const told = describeUnexpressed(description, fitted.unexpressed);
			return {
				type: 'function',
				function: {
					...definition,
					...(told !== undefined && { description: told }),
					parameters: fitted.parameters,
				},
			};
		},
	);
	return { tools: converted, names, notStrict: notStrictAll(tools, strict, NO_STRICT_MODE) };
}
