import type { Finish } from '../types';

/** Ollama's done_reason: stop, length, and load or unload for a request that only (un)loaded the model. */
export function ollamaFinish(reason: string | null, hasToolCalls: boolean): Finish {
	// Ollama reports "stop" for a turn that called tools: the calls decide.
	if (hasToolCalls) return 'tool_calls';
	switch (reason) {
		case 'stop':
			return 'stop';
		case 'length':
			return 'length';
		default:
			return 'other';
	}
}
