import { buildToolNameMap, type ToolNameRule } from '../toolNames';
import type { ToolNameMap } from '../types';

/**
 * Chat Completions function names: 1 to 64 of [A-Za-z0-9_-].
 * @see https://platform.openai.com/docs/api-reference/chat/create#chat-create-tools
 */
export const openaiNameRule: ToolNameRule = { allowed: /[A-Za-z0-9_-]/, maxLength: 64 };

export function openaiToolNames(names: readonly string[]): ToolNameMap {
	return buildToolNameMap(names, openaiNameRule);
}
