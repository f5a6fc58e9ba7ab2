import type { Finish } from '../types';

/** Chat Completions finish_reason: stop, length, tool_calls, content_filter, function_call (legacy). */
export function openaiFinish(reason: string | null, hasToolCalls: boolean): Finish {
	// Decided by the calls present first: compatible servers report "stop" with calls.
	if (hasToolCalls) return 'tool_calls';
	switch (reason) {
		case 'stop':
			return 'stop';
		case 'length':
			return 'length';
		case 'content_filter':
			return 'content_filter';
		default:
			return 'other';
	}
}
