import type { AssistantMessage, Message, ToolMessage } from '../../conversation/types';
import { argumentsObject } from '../calls';
import { isRecord } from '../../json/value';
import type { ToolNameMap } from '../types';
import { functionCallsOf, visibleText } from './response';
import type { GeminiContent, GeminiPart } from './wire';

/**
 * Google's documented stand-in signature for function calls without a real one (a history from another
 * vendor, or from a model that did not sign): Gemini 3 refuses a continued turn whose calls carry none.
 */
export const SKIP_SIGNATURE = 'skip_thought_signature_validator';

export interface GeminiContents {
	systemInstruction?: GeminiContent;
	contents: GeminiContent[];
}

export interface GeminiMessageOptions {
	/** Put SKIP_SIGNATURE on turns whose calls carry no signature (for models that check signatures). */
	signFunctionCalls: boolean;
}

/** What a functionResponse must repeat of the call it answers. */
interface AnsweredCall {
	name: string;
	/** Only an id Gemini gave: ours (made up by collectToolCalls, or another vendor's) mean nothing to it. */
	id?: string;
}

/**
 * Our messages as Gemini contents, in the order Gemini accepts: system text to systemInstruction;
 * assistant turns as model turns (their own parts echoed when Gemini wrote them), one after another
 * merged into one, as a turn of calls must follow a user turn or a turn of results; the results of
 * a turn of calls as ONE user turn of functionResponse parts right after it, and user text written
 * among them after that turn. Blank text is left out: Gemini refuses an empty text part.
 */
export function toGeminiContents(
	messages: readonly Message[],
	names: ToolNameMap,
	options: GeminiMessageOptions,
): GeminiContents {
	const system: GeminiPart[] = [];
	const contents: GeminiContent[] = [];
	const calls = new Map<string, AnsweredCall>();
	// The turn of results a turn of calls opened, and the user text that came among them.
	let answering: { results: GeminiPart[]; later: GeminiPart[] } | undefined;
	const results = new WeakSet<GeminiContent>();
	const add = (role: 'user' | 'model', parts: GeminiPart[]) => {
		const last = contents.at(-1);
		if (last?.role === role && !results.has(last)) last.parts.push(...parts);
		else contents.push({ role, parts });
	};
	const closeAnswering = () => {
		if (!answering) return;
		if (answering.results.length > 0) {
			const turn: GeminiContent = { role: 'user', parts: answering.results };
			results.add(turn);
			contents.push(turn);
		}
		if (answering.later.length > 0) add('user', answering.later);
		answering = undefined;
	};
	for (const message of messages) {
		if (message.role === 'system') {
			if (message.content.trim() !== '') system.push({ text: message.content });
		} else if (message.role === 'user') {
			if (message.content.trim() === '') continue;
			const text = { text: message.content };
			if (answering) answering.later.push(text);
			else add('user', [text]);
		} else if (message.role === 'assistant') {
			closeAnswering();
			const parts = modelParts(message, names, calls);
			if (options.signFunctionCalls) signFirstCall(parts);
			// Gemini refuses a turn without parts; an empty assistant turn says nothing anyway.
			if (parts.length > 0) add('model', parts);
			if (parts.some((part) => isRecord(part.functionCall))) answering = { results: [], later: [] };
		} else {
			const part = functionResponse(message, calls.get(message.tool_call_id), names);
			if (answering) answering.results.push(part);
			else add('user', [part]);
		}
	}
	closeAnswering();
	return { ...(system.length > 0 && { systemInstruction: { parts: system } }), contents };
}

/**
 * A Gemini-written turn is echoed as it came (thought signatures included) while it still says what
 * the neutral message says (its text, and its calls by position, the order collectToolCalls kept);
 * an edited message, or any other turn, is rebuilt from the neutral form. Either way the array is
 * new, so signing it never touches the conversation.
 */
function modelParts(
	message: AssistantMessage,
	names: ToolNameMap,
	calls: Map<string, AnsweredCall>,
): GeminiPart[] {
	const toolCalls = message.tool_calls ?? [];
	const turn = message.vendorTurn;
	const echoed =
		turn?.dialect === 'gemini' && Array.isArray(turn.content)
			? (turn.content.filter(isRecord) as GeminiPart[])
			: [];
	const sent = functionCallsOf(echoed);
	const agrees =
		visibleText(echoed) === (message.content ?? '') &&
		sent.length === toolCalls.length &&
		sent.every((call, index) => call.name === names.toVendor(toolCalls[index].function.name));
	if (echoed.length > 0 && agrees) {
		toolCalls.forEach((call, index) => {
			const vendorCall = sent[index];
			calls.set(call.id, {
				name:
					typeof vendorCall?.name === 'string'
						? vendorCall.name
						: names.toVendor(call.function.name),
				...(vendorCall?.id === call.id && { id: call.id }),
			});
		});
		return echoed;
	}
	const parts: GeminiPart[] = message.content ? [{ text: message.content }] : [];
	for (const call of toolCalls) {
		const name = names.toVendor(call.function.name);
		calls.set(call.id, { name });
		parts.push({ functionCall: { name, args: argumentsObject(call.function.arguments) } });
	}
	return parts;
}

/** Gemini signs the first call of a turn only (parallel calls after it carry none), so the stand-in goes there. */
function signFirstCall(parts: GeminiPart[]): void {
	const calls = parts.filter((part) => isRecord(part.functionCall));
	if (calls.length === 0 || calls.some((part) => part.thoughtSignature !== undefined)) return;
	const first = parts.indexOf(calls[0]);
	parts[first] = { ...calls[0], thoughtSignature: SKIP_SIGNATURE };
}

function functionResponse(
	message: ToolMessage,
	call: AnsweredCall | undefined,
	names: ToolNameMap,
): GeminiPart {
	return {
		functionResponse: {
			// A result whose call is not in the history keeps the tool's name it carries.
			name: call?.name ?? names.toVendor(message.name ?? ''),
			...(call?.id !== undefined && { id: call.id }),
			response: message.isError
				? { error: message.content }
				: { output: message.structuredContent ?? message.content },
		},
	};
}
