import type { Finish } from './types';

/**
 * A turn's finish for vendors whose stop reason does not mark a turn with tool calls (Gemini and
 * Ollama have no reason for it, compatible servers say "stop" beside calls): the calls present
 * decide first, then the vendor's reason as `reasons` maps it; a reason not there is 'other'.
 */
export function finishByCallsOrReason(
	reason: string | null,
	hasToolCalls: boolean,
	reasons: Readonly<Record<string, Finish>>,
): Finish {
	if (hasToolCalls) return 'tool_calls';
	return reason !== null && Object.hasOwn(reasons, reason) ? reasons[reason] : 'other';
}
