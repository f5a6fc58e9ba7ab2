import { buildToolNameMap, type ToolNameRule } from '../toolNames';
import type { ToolNameMap } from '../types';

/** Gemini function names: a letter or '_' first, then letters, digits, '_', '.', ':' or '-'; up to 128. MCP's dotted names stay as they are. */
export const geminiNameRule: ToolNameRule = {
	allowed: /[A-Za-z0-9_.:-]/,
	first: /[A-Za-z_]/,
	maxLength: 128,
};

export function geminiToolNames(names: readonly string[]): ToolNameMap {
	return buildToolNameMap(names, geminiNameRule);
}
