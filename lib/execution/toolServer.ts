import type { CallToolResult, McpTool, ToolCallOptions } from '../mcp/connection';
import type { Recording, RunPlace } from '../trace/recording';
import type { CallFailureStatus } from './failures';

/** What the executor needs of a server: a live connection, or a recorded run answering in its place. */
export interface ToolServer {
	/** `tools/call`. `callId` is the model's id of the call: a recording finds its answer by it. */
	callTool(
		name: string,
		args: Record<string, unknown>,
		options: ToolCallOptions,
		callId: string,
	): Promise<CallToolResult>;
	stderrTail(): string;
	/** True when a recording answers in the server's place: the trace says so. */
	readonly replayed?: boolean;
}

/** A server that also finds a tool it lists, asked when a call names a tool the item does not carry. */
export interface ListingToolServer extends ToolServer {
	findTool(name: string): Promise<McpTool | undefined>;
}

/** A call that failed at the server in the recorded run (timeout, lost connection…): replayed as that same failure. */
export class RecordedFailure extends Error {
	constructor(
		readonly status: CallFailureStatus,
		message: string,
	) {
		super(message);
	}
}

/**
 * The server as the recorded run saw it at this place of the run: its tool list and each call's answer come
 * from the recording, and only if the call is the one recorded (else a ReplayDriftError).
 */
export function recordedToolServer(recording: Recording, place: RunPlace): ListingToolServer {
	return {
		replayed: true,
		callTool: async (name, args, options, callId) => {
			const answer = recording.toolAnswer(place, callId, name, args);
			// The call is told of the server's requests as the live call was: the model reads of them too.
			for (const ask of answer.serverAsks) options.elicitation?.onServerRequest?.(ask);
			if ('result' in answer) return answer.result;
			throw new RecordedFailure(answer.failure.status as CallFailureStatus, answer.failure.text);
		},
		findTool: async (name) => recording.toolsKnownAt(place).find((tool) => tool.name === name),
		stderrTail: () => '',
	};
}
