import { buildToolNameMap, type ToolNameRule } from '../toolNames';
import type { ToolNameMap } from '../types';

/**
 * Anthropic tool names: 1 to 64 of [a-zA-Z0-9_-].
 * @see https://docs.anthropic.com/en/api/messages#body-tools
 */
export const anthropicNameRule: ToolNameRule = { allowed: /[A-Za-z0-9_-]/, maxLength: 64 };

/** tool_use ids must match ^[a-zA-Z0-9_-]+$; no length limit is documented. */
const toolUseIdRule: ToolNameRule = { allowed: /[A-Za-z0-9_-]/, maxLength: Infinity };

export function anthropicToolNames(names: readonly string[]): ToolNameMap {
	return buildToolNameMap(names, anthropicNameRule);
}

/**
 * Call ids written by other vendors (`functions.echo:1` and the like) made legal tool_use ids, the
 * same way for a call and its result so they still match. Only `toVendor` is used: ids that come
 * back from Anthropic are its own.
 */
export function anthropicToolUseIds(ids: readonly string[]): ToolNameMap {
	return buildToolNameMap(ids, toolUseIdRule);
}
