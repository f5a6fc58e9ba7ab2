import type { Tool } from '../../conversation/types';
import { toGeminiSchema } from '../../schema/gemini';
import { objectRootSchema } from '../../schema/objectRoot';
import { notStrictAll } from '../settings';
import type { ToolNameMap, VendorTools } from '../types';
import type { GeminiTool } from './wire';

const NO_STRICT_MODE = 'Gemini has no strict mode; the schema is sent as its Schema subset';

/**
 * Our tools as one Gemini tool of function declarations. The schema goes in `parameters` (Gemini's
 * OpenAPI subset), not `parametersJsonSchema`: the full JSON Schema field is newer and not read by
 * every model and endpoint, while `parameters` works with every Gemini model and with Vertex AI.
 * The two fields must never be sent together.
 */
export function toGeminiTools(
	tools: readonly Tool[],
	names: ToolNameMap,
	strict = false,
): VendorTools<GeminiTool> {
	const functionDeclarations = tools.map((tool) => {
		const description = tool.description ?? tool.title;
		return {
			name: names.toVendor(tool.name),
			...(description !== undefined && { description }),
			parameters: toGeminiSchema(objectRootSchema(tool)),
		};
	});
	return {
		tools: functionDeclarations.length > 0 ? [{ functionDeclarations }] : [],
		names,
		notStrict: notStrictAll(tools, strict, NO_STRICT_MODE),
	};
}
