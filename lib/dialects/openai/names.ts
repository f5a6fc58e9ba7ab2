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

/**
 * Chat Completions refuses a call id in history past 40 characters ("string too long"), whoever
 * wrote it: vLLM's run to 46. Longer ids are shortened, the same way for a call and its result so
 * they still match; only `toVendor` is used, as ids that come back are the vendor's own.
 */
const callIdRule: ToolNameRule = { allowed: /[\s\S]/, maxLength: 40 };

export function openaiCallIds(ids: readonly string[]): ToolNameMap {
	return buildToolNameMap(ids, callIdRule);
}
