import { finishByCallsOrReason } from '../finish';
import type { Finish } from '../types';

/** Ollama's done_reason: stop, length, and load or unload for a request that only (un)loaded the model. */
const REASONS: Record<string, Finish> = { stop: 'stop', length: 'length' };

/** Ollama reports "stop" for a turn that called tools: the calls decide. */
export function ollamaFinish(reason: string | null, hasToolCalls: boolean): Finish {
	return finishByCallsOrReason(reason, hasToolCalls, REASONS);
}
