import { isRecord } from '../../json/value';
import type { StreamAssembler } from '../types';
import { applyPartialArgs, type OpenCall } from './partialArgs';
import { visibleText } from './response';
import type { GeminiCandidate, GeminiPart, GeminiResponse } from './wire';

const TEXT_KEYS = new Set(['text', 'thought', 'thoughtSignature']);

/** A piece of streamed text: text, its thought flag and maybe a signature, nothing else. */
function isTextPiece(part: GeminiPart): part is GeminiPart & { text: string } {
	return typeof part.text === 'string' && Object.keys(part).every((key) => TEXT_KEYS.has(key));
}

/**
 * Folds streamGenerateContent events (each a partial GenerateContentResponse) into the body that
 * generateContent returns. Text arrives in pieces and is joined into one part while the thought flag
 * stays the same; a signature closes the part it lands on, as a non-streamed body carries it.
 * Function calls arrive whole, or (Vertex AI) in pieces folded into one call (partialArgs.ts). Top-level
 * keys (usageMetadata, cumulative) are kept from the last event.
 * Only candidate 0 is kept (we never ask for more).
 */
export function createGeminiStreamAssembler(): StreamAssembler<GeminiResponse, GeminiResponse> {
	const head: Record<string, unknown> = {};
	const parts: GeminiPart[] = [];
	let candidate: Omit<GeminiCandidate, 'content'> | undefined;
	/** A call streamed in pieces, while more of it is to come. */
	let open: OpenCall | undefined;

	/** A piece of a call: the start of one streamed in pieces, or more of the open one; false for a whole call. */
	function addCallPiece(part: GeminiPart): boolean {
		const call = part.functionCall;
		if (!isRecord(call)) return false;
		if (open && call.name === undefined) {
			const { partialArgs, willContinue, args, ...rest } = call;
			if (isRecord(args)) open.call.args = { ...open.call.args, ...args };
			if (partialArgs !== undefined) applyPartialArgs(open, partialArgs);
			Object.assign(open.call, rest);
			const signed = parts.find((held) => held.functionCall === open?.call);
			if (signed && part.thoughtSignature !== undefined)
				signed.thoughtSignature = part.thoughtSignature;
			if (willContinue !== true) {
				delete open.call.willContinue;
				open = undefined;
			}
			return true;
		}
		if (call.willContinue !== true) return false;
		const { partialArgs, ...started } = call;
		const args = isRecord(started.args) ? { ...started.args } : {};
		const held = { ...part, functionCall: { ...started, args } };
		parts.push(held);
		open = { call: held.functionCall };
		if (partialArgs !== undefined) applyPartialArgs(open, partialArgs);
		return true;
	}

	function addPart(part: GeminiPart): void {
		if (addCallPiece(part)) return;
		const last = parts.at(-1);
		if (isTextPiece(part)) {
			if (
				last &&
				isTextPiece(last) &&
				last.thoughtSignature === undefined &&
				Boolean(last.thought) === Boolean(part.thought)
			) {
				last.text += part.text;
				if (part.thoughtSignature !== undefined) last.thoughtSignature = part.thoughtSignature;
				return;
			}
			// An empty piece without a signature (streams end with one) carries nothing.
			if (part.text === '' && part.thoughtSignature === undefined) return;
		}
		parts.push({ ...part });
	}

	return {
		push(chunk) {
			if (!isRecord(chunk)) return '';
			const { candidates, ...rest } = chunk;
			Object.assign(head, rest);
			const first = Array.isArray(candidates)
				? candidates.find((c) => isRecord(c) && (c.index ?? 0) === 0)
				: undefined;
			if (!first) return '';
			const { content, ...fields } = first;
			candidate = { ...candidate, ...fields };
			const pieces = isRecord(content) && Array.isArray(content.parts) ? content.parts : [];
			const records = pieces.filter(isRecord);
			for (const part of records) addPart(part);
			return visibleText(records);
		},
		// A finish reason ends the turn; so does a blocked prompt, which gets no candidate at all.
		finished: () =>
			typeof candidate?.finishReason === 'string' ||
			(isRecord(head.promptFeedback) && typeof head.promptFeedback.blockReason === 'string'),
		result: () => ({
			...head,
			candidates: candidate ? [{ ...candidate, content: { role: 'model', parts } }] : [],
		}),
	};
}
