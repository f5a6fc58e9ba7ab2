import type { Tool } from '../../conversation/types';
import { objectRootSchema } from '../../schema/objectRoot';
import { toStrictSchema } from '../../schema/strict';
import type { ToolNameMap, VendorTools } from '../types';
import type { OpenAIFunction, OpenAITool } from './wire';

/** Our tools as Chat Completions function tools; with `strict`, each schema converted where it can be. */
export function toOpenAITools(
	tools: readonly Tool[],
	names: ToolNameMap,
	strict = false,
): VendorTools<OpenAITool> {
	const notStrict: VendorTools<unknown>['notStrict'] = [];
	const converted = tools.map((tool): OpenAITool => {
		const schema = objectRootSchema(tool);
		const description = tool.description ?? tool.title;
		const definition: OpenAIFunction = {
			name: names.toVendor(tool.name),
			...(description !== undefined && { description }),
			parameters: schema,
		};
		if (strict) {
			const result = toStrictSchema(schema);
			if (result.ok) Object.assign(definition, { parameters: result.schema, strict: true });
			else notStrict.push({ name: tool.name, reason: result.reason });
		}
		return { type: 'function', function: definition };
	});
	return { tools: converted, names, notStrict };
}
