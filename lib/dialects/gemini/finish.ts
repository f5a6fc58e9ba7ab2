import { finishByCallsOrReason } from '../finish';
import type { Finish } from '../types';

const REASONS: Record<string, Finish> = {
	STOP: 'stop',
	MAX_TOKENS: 'length',
	SAFETY: 'content_filter',
	RECITATION: 'content_filter',
	BLOCKLIST: 'content_filter',
	PROHIBITED_CONTENT: 'content_filter',
	SPII: 'content_filter',
	IMAGE_SAFETY: 'content_filter',
	// Vertex AI's own reasons of the same kind.
	MODEL_ARMOR: 'content_filter',
	IMAGE_PROHIBITED_CONTENT: 'content_filter',
	IMAGE_RECITATION: 'content_filter',
	MALFORMED_FUNCTION_CALL: 'malformed_tool_call',
	UNEXPECTED_TOOL_CALL: 'malformed_tool_call',
	TOO_MANY_TOOL_CALLS: 'malformed_tool_call',
};

/** Gemini's finishReason. It has no reason for tool calls (calls end with STOP), so the calls present decide. */
export function geminiFinish(reason: string | null, hasToolCalls: boolean): Finish {
	return finishByCallsOrReason(reason, hasToolCalls, REASONS);
}
