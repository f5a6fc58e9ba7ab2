import { buildToolNameMap, type ToolNameRule } from '../toolNames';
import type { ToolNameMap } from '../types';

/**
 * Gemini function names: letters, digits, '_', '.', ':' or '-', up to 64 characters; a letter or
 * '_' first, as Vertex AI asks. MCP's dotted names stay as they are.
 * @see https://ai.google.dev/api/caching#FunctionDeclaration
 */
export const geminiNameRule: ToolNameRule = {
	allowed: /[A-Za-z0-9_.:-]/,
	first: /[A-Za-z_]/,
	maxLength: 64,
};

export function geminiToolNames(names: readonly string[]): ToolNameMap {
	return buildToolNameMap(names, geminiNameRule);
}
