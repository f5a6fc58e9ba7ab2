import type { Finish } from '../types';

/**
 * Messages stop_reason: end_turn, stop_sequence, tool_use, max_tokens, model_context_window_exceeded,
 * refusal, pause_turn (a server tool loop paused; the turn is to be sent back as it is).
 */
export function anthropicFinish(reason: string | null, hasToolCalls: boolean): Finish {
	// A call cut off by the token limit is reported as cut off; its arguments are incomplete.
	if (reason === 'max_tokens' || reason === 'model_context_window_exceeded') return 'length';
	if (reason === 'refusal') return 'content_filter';
	// Decided by the calls present: compatible servers may report end_turn with calls.
	if (hasToolCalls) return 'tool_calls';
	if (reason === 'end_turn' || reason === 'stop_sequence') return 'stop';
	return 'other';
}
