import type { AssistantToolCall, PendingToolCall, VendorTurn } from '../../conversation/types';
import { collectToolCalls, expandParallelCall, textBesideCalls } from '../calls';
import { excerpt, isRecord } from '../../json/value';
import { rejectErrorBody } from '../errors';
import { modelName, usageOfTurn } from '../usage';
import { responsesErrorMessage } from './http';
import type { ModelTurn, ToolNameMap } from '../types';
import { responsesFinish } from './finish';
import { responsesUsage } from './usage';
import type { ResponsesResponse } from './wire';

export interface OutputReading {
	content: string | null;
	assistantCalls: AssistantToolCall[];
	toolCalls: PendingToolCall[];
}

/**
 * A Responses body to a ModelTurn. The body is read as untrusted JSON: compatible servers leave out
 * ids and statuses, send arguments as objects, or answer with an error body and status 200.
 */
export function parseResponsesResponse(body: ResponsesResponse, names: ToolNameMap): ModelTurn {
	rejectErrorBody(
		body,
		(errorBody) => responsesErrorMessage(errorBody) ?? failedWithoutError(errorBody),
	);
	if (!Array.isArray(body.output))
		throw new Error(`The model API response has no output array: ${excerpt(body)}`);

	const { content, assistantCalls, toolCalls } = readOutput(body.output, names);
	const status = typeof body.status === 'string' ? body.status : null;
	const reason = body.incomplete_details?.reason ?? null;
	const vendorTurn = echoableTurn(body.output, status);
	const unanswered = clientItems(body.output);
	const reasoning = reasoningSummary(body.output);
	const finish = responsesFinish(status, reason, toolCalls.length > 0);
	return {
		message: {
			role: 'assistant',
			content,
			...(assistantCalls.length > 0 && { tool_calls: assistantCalls }),
			...(vendorTurn && { vendorTurn }),
		},
		toolCalls,
		// A turn of only items the client must run is no answer, whatever the status says.
		finish: finish === 'stop' && unanswered.length > 0 ? 'other' : finish,
		// The most precise word the vendor gave: why it stopped early, else the status.
		finishReason: status === 'incomplete' && reason ? reason : status,
		...modelName(body.model),
		...(isRecord(body.usage) && { usage: body.usage }),
		...usageOfTurn(responsesUsage(body.usage)),
		...(unanswered.length > 0 && { unanswered }),
		...(reasoning !== '' && { reasoning }),
	};
}

/** The summaries of the turn's reasoning items, as text: what the model shows of its reasoning. */
function reasoningSummary(output: readonly unknown[]): string {
	return output
		.filter((item) => isRecord(item) && item.type === 'reasoning')
		.flatMap((item) =>
			Array.isArray((item as Record<string, unknown>).summary)
				? ((item as Record<string, unknown>).summary as unknown[])
				: [],
		)
		.flatMap((part) => (isRecord(part) && typeof part.text === 'string' ? [part.text] : []))
		.join('\n\n');
}

/**
 * Output items only the client can act on, which this node never offers and so cannot hand on as
 * calls: a custom tool's call, a shell command or patch to run, an MCP call waiting for approval.
 * @see https://platform.openai.com/docs/api-reference/responses/object#responses/object-output
 */
const CLIENT_ITEMS = new Set([
	'custom_tool_call',
	'local_shell_call',
	'shell_call',
	'apply_patch_call',
	'computer_call',
	'mcp_approval_request',
]);

/** Each client item, named: its kind, its tool or server, its id. */
function clientItems(output: readonly unknown[]): string[] {
	return output
		.filter(isRecord)
		.filter((item) => CLIENT_ITEMS.has(String(item.type)))
		.map((item) => {
			const name = typeof item.name === 'string' ? ` '${item.name}'` : '';
			const server = typeof item.server_label === 'string' ? ` of ${item.server_label}` : '';
			const id = item.call_id ?? item.id;
			return `${String(item.type)}${name}${server}${typeof id === 'string' ? ` (${id})` : ''}`;
		});
}

/**
 * Output items to our neutral turn: the text of the messages and the function calls, names mapped
 * back. A call's id is its call_id, which its function_call_output must name (the item id fc_… is not).
 */
export function readOutput(output: readonly unknown[], names: ToolNameMap): OutputReading {
	const items = output.filter(isRecord);
	const texts = items.filter((item) => item.type === 'message').flatMap(messageText);
	const { assistantCalls, toolCalls } = collectToolCalls(
		items
			.filter((item) => item.type === 'function_call')
			.flatMap((call) =>
				expandParallelCall({
					id: call.call_id,
					name: call.name,
					arguments: call.arguments,
					sent: call,
				}),
			),
		names,
	);
	// Two messages (commentary, then the answer) read as two paragraphs.
	const text = texts.length > 0 ? texts.join('\n\n') : null;
	// Streams open a message before its text; "" beside calls says nothing, and null keeps both paths alike.
	return { content: textBesideCalls(text, assistantCalls.length > 0), assistantCalls, toolCalls };
}

/** A message's text parts joined; a refusal is the model's answer in strict mode and is kept as the text. */
function messageText(message: Record<string, unknown>): string[] {
	if (typeof message.content === 'string') return [message.content];
	const parts = Array.isArray(message.content) ? message.content.filter(isRecord) : [];
	const texts = parts
		.map((part) =>
			part.type === 'output_text' ? part.text : part.type === 'refusal' ? part.refusal : undefined,
		)
		.filter((text): text is string => typeof text === 'string');
	return texts.length > 0 ? [texts.join('')] : [];
}

function failedWithoutError(body: Record<string, unknown>): string | undefined {
	return body.status === 'failed'
		? `the response failed without saying why: ${excerpt(body)}`
		: undefined;
}

/**
 * The output as our vendorTurn when it holds what the neutral form cannot: reasoning items. Only with
 * their encrypted content (asked for with include), for under store:false an item that is only an id
 * is refused as "not found"; and only from a completed turn, as a reasoning item must be followed by
 * the item it led to.
 */
function echoableTurn(output: unknown[], status: string | null): VendorTurn | undefined {
	const hasEncryptedReasoning = output.some(
		(item) =>
			isRecord(item) && item.type === 'reasoning' && typeof item.encrypted_content === 'string',
	);
	return hasEncryptedReasoning && status === 'completed'
		? { dialect: 'openaiResponses', content: output }
		: undefined;
}
