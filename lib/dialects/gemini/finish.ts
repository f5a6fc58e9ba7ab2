import type { Finish } from '../types';

const CONTENT_FILTER = new Set([
	'SAFETY',
	'RECITATION',
	'BLOCKLIST',
	'PROHIBITED_CONTENT',
	'SPII',
	'IMAGE_SAFETY',
	// Vertex AI's own reasons of the same kind.
	'MODEL_ARMOR',
	'IMAGE_PROHIBITED_CONTENT',
	'IMAGE_RECITATION',
]);
const MALFORMED_TOOL_CALL = new Set([
	'MALFORMED_FUNCTION_CALL',
	'UNEXPECTED_TOOL_CALL',
	'TOO_MANY_TOOL_CALLS',
]);

/** Gemini's finishReason. It has no reason for tool calls (calls end with STOP), so the calls present decide. */
export function geminiFinish(reason: string | null, hasToolCalls: boolean): Finish {
	if (hasToolCalls) return 'tool_calls';
	if (reason === 'STOP') return 'stop';
	if (reason === 'MAX_TOKENS') return 'length';
	if (reason !== null && CONTENT_FILTER.has(reason)) return 'content_filter';
	if (reason !== null && MALFORMED_TOOL_CALL.has(reason)) return 'malformed_tool_call';
	return 'other';
}
