import type { Finish } from '../types';

/**
 * Responses `status`: completed, incomplete (why in incomplete_details.reason: max_output_tokens or
 * content_filter), in_progress (a stream cut short), queued, cancelled. `failed` never gets here: the
 * parser throws on it.
 */
export function responsesFinish(
	status: string | null,
	incompleteReason: string | null,
	hasToolCalls: boolean,
): Finish {
	if (status === 'incomplete') {
		if (incompleteReason === 'max_output_tokens') return 'length';
		if (incompleteReason === 'content_filter') return 'content_filter';
		return 'other';
	}
	// Only a finished turn's calls are whole; compatible servers may leave out the status.
	if (status !== 'completed' && status !== null) return 'other';
	if (hasToolCalls) return 'tool_calls';
	return status === 'completed' ? 'stop' : 'other';
}
