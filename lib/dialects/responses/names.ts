import { buildToolNameMap, type ToolNameRule } from '../toolNames';
import { openaiToolNames } from '../openai/names';
import type { ToolNameMap } from '../types';

/** Responses function names follow the Chat Completions rule (1 to 64 of [A-Za-z0-9_-]), so one map serves both. */
export const responsesToolNames = openaiToolNames;

/** A `call_id` is refused past 64 characters: longer ids from other servers are shortened, as in Chat Completions. */
const callIdRule: ToolNameRule = { allowed: /[\s\S]/, maxLength: 64 };

export function responsesCallIds(ids: readonly string[]): ToolNameMap {
	return buildToolNameMap(ids, callIdRule);
}
