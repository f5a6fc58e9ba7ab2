import type { Conversation } from '../conversation/types';
import type { ModelSettings } from '../dialects/types';

/** The conversation has calls no tool has answered yet: the APIs refuse a turn after unanswered calls. */
export class PendingCallsError extends Error {
	/** `pending`: the tools called; `servers`: the labels of the servers whose executor they wait for. */
	constructor(
		readonly pending: string[],
		readonly servers: string[] = [],
	) {
		super(`${pending.length} tool calls are still pending (${pending.join(', ')})`);
	}
}

/** The tool choice names a tool the conversation does not have. */
export class UnknownToolChoiceError extends Error {
	constructor(
		readonly toolChoice: string,
		readonly tools: string[],
	) {
		super(`Tool Choice names '${toolChoice}', which is not among the tools`);
	}
}

/** Tool Choice asks for a call, but there is no tool to call: the vendors then drop the choice and answer in text. */
export class NoToolToChooseError extends Error {
	constructor() {
		super(
			'Tool Choice is Required, but the conversation has no tools: list the tools first (MCP Client, List Tools), or set Tool Choice to Auto',
		);
	}
}

/** A tool message answers a call no earlier assistant message made: every vendor but Ollama refuses such a result. */
export class ResultWithoutCallError extends Error {
	constructor(position: number, callId: string) {
		super(
			`Message ${position} (tool) answers the call '${callId}', which no assistant message before it made: the vendors refuse a result without its call. Keep the assistant message with the call, or remove the result as well (a history cut short, say)`,
		);
	}
}

/** Throws when the model cannot be asked for a turn yet, before a request is built. */
export function checkReadyForTurn(conversation: Conversation, settings: ModelSettings): void {
	if (conversation.toolCalls.length > 0)
		throw new PendingCallsError(
			conversation.toolCalls.map((call) => call.name),
			serversOf(conversation),
		);
	const made = new Set<string>();
	conversation.messages.forEach((message, index) => {
		if (message.role === 'assistant')
			for (const call of message.tool_calls ?? []) made.add(call.id);
		if (message.role === 'tool' && !made.has(message.tool_call_id))
			throw new ResultWithoutCallError(index + 1, message.tool_call_id);
	});
	const { toolChoice } = settings;
	if (toolChoice === 'required' && conversation.tools.length === 0) throw new NoToolToChooseError();
	if (
		typeof toolChoice === 'object' &&
		!conversation.tools.some((tool) => tool.name === toolChoice.name)
	) {
		throw new UnknownToolChoiceError(
			toolChoice.name,
			conversation.tools.map((tool) => tool.name),
		);
	}
}

/** The labels of the servers whose tools the pending calls name, as the item's tools give them. */
function serversOf(conversation: Conversation): string[] {
	const labels = conversation.toolCalls.map(
		(call) => conversation.tools.find((tool) => tool.name === call.name)?.server,
	);
	return [...new Set(labels.filter((label): label is string => typeof label === 'string'))];
}
