import type { Tool } from '../../conversation/types';
import { toOpenAITools } from '../openai/tools';
import type { ToolNameMap, VendorTools } from '../types';
import type { ResponsesFunctionTool } from './wire';

/**
 * Our tools as Responses function tools: the Chat Completions definitions (same schema, same strict
 * conversion) laid flat. `strict` is always sent: Responses makes a function strict unless told
 * `strict: false`, and would then hold a schema that was never converted to strict rules.
 */
export function toResponsesTools(
	tools: readonly Tool[],
	names: ToolNameMap,
	strict = false,
): VendorTools<ResponsesFunctionTool> {
	const chat = toOpenAITools(tools, names, strict);
	const flat = chat.tools.map(({ function: definition }): ResponsesFunctionTool => ({
		type: 'function',
		name: definition.name,
		...(definition.description !== undefined && { description: definition.description }),
		parameters: definition.parameters ?? null,
		strict: definition.strict === true,
	}));
	return { tools: flat, names, notStrict: chat.notStrict };
}
