import { finishByCallsOrReason } from '../finish';
import type { Finish } from '../types';

/**
 * Chat Completions finish_reason: stop, length, tool_calls, content_filter, function_call (legacy).
 * A turn with calls is read off the calls present, as compatible servers report "stop" with calls.
 */
const REASONS: Record<string, Finish> = {
	stop: 'stop',
	length: 'length',
	content_filter: 'content_filter',
};

export function openaiFinish(reason: string | null, hasToolCalls: boolean): Finish {
	return finishByCallsOrReason(reason, hasToolCalls, REASONS);
}
