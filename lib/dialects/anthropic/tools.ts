import type { JsonSchema, Tool } from '../../conversation/types';
import { objectRootSchema } from '../../schema/objectRoot';
import { notStrictAll } from '../settings';
import type { ToolNameMap, VendorTools } from '../types';
import type { AnthropicTool } from './wire';

/**
 * Why `strict: true` is never sent. Anthropic's strict tool use has limits that count over every
 * strict tool of a request (as documented: at most 20 tools, 24 optional and 16 union-typed
 * parameters in all, and a compiled-grammar size limit); past them the whole request is refused,
 * so one large MCP tool would break every call. Arguments are checked against the schema before
 * any call instead.
 */
const STRICT_NOT_SENT =
	'strict mode is not sent to Anthropic: its limits count over all tools of a request, so one tool past them would fail every call';

const ROOT_UNIONS = ['oneOf', 'anyOf', 'allOf'] as const;

/** Our tools as Anthropic tools; with `strict`, every tool is named as sent without it. */
export function toAnthropicTools(
	tools: readonly Tool[],
	names: ToolNameMap,
	strict = false,
): VendorTools<AnthropicTool> {
	const converted = tools.map((tool): AnthropicTool => {
		const { schema, unsent } = toInputSchema(tool);
		const description = [
			tool.description ?? tool.title,
			unsent && `The arguments must also match this JSON Schema: ${unsent}`,
		]
			.filter(Boolean)
			.join('\n\n');
		return {
			name: names.toVendor(tool.name),
			...(description !== '' && { description }),
			input_schema: schema,
		};
	});
	return { tools: converted, names, notStrict: notStrictAll(tools, strict, STRICT_NOT_SENT) };
}

/**
 * The schema as Anthropic takes it: an object root (objectRootSchema), without oneOf/anyOf/allOf
 * at the top level ("input_schema does not support oneOf, allOf, or anyOf at the top level"),
 * which fails the whole request. A root union is taken out and returned as text for the
 * description, which loses nothing that is enforced: the executor checks arguments against the
 * tool's own schema before calling it.
 */
function toInputSchema(tool: Tool): { schema: JsonSchema; unsent?: string } {
	const schema: JsonSchema = { ...objectRootSchema(tool) };
	const unions = ROOT_UNIONS.filter((keyword) => schema[keyword] !== undefined);
	if (unions.length === 0) return { schema };
	const unsent = Object.fromEntries(unions.map((keyword) => [keyword, schema[keyword]]));
	for (const keyword of unions) delete schema[keyword];
	return { schema, unsent: JSON.stringify(unsent) };
}
