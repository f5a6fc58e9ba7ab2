import type { CallToolResult, McpTool, ToolCallOptions } from '../mcp/connection';
import type { Recording, RunPlace } from '../trace/recording';
import type { CallFailureStatus } from './failures';

/**
 * Where a call ran, when the server can say: an n8n workflow tool's sub-execution (its id, workflow
 * and status). Traced on the call's result, so a person opens the very run that answered.
 */
export type CallRun = Record<string, unknown>;

/** The key of a result's CallRun: a symbol, so no key a server sends can pass for one. */
export const CALL_RUN = Symbol('callRun');

/** A tools/call result, with where the call ran when the server tells. */
export type ServedResult = CallToolResult & { [CALL_RUN]?: CallRun };

/** What the executor needs of a server: a live connection, or a recorded run answering in its place. */
export interface ToolServer {
	/** `tools/call`. `callId` is the model's id of the call: a recording finds its answer by it. */
	callTool(
		name: string,
		args: Record<string, unknown>,
		options: ToolCallOptions,
		callId: string,
	): Promise<ServedResult>;
	stderrTail(): string;
	/** True when a recording answers in the server's place: the trace says so. */
	readonly replayed?: boolean;
}

/** A server that also finds a tool it lists, asked when a call names a tool the item does not carry. */
export interface ListingToolServer extends ToolServer {
	findTool(name: string): Promise<McpTool | undefined>;
}

/**
 * A call that failed at the server in words the server gives itself: a failure of the recorded run
 * (timeout, lost connection…) replayed as that same failure, or one a workflow tool describes.
 */
export class RecordedFailure extends Error {
	constructor(
		readonly status: CallFailureStatus,
		message: string,
		/** Where the call ran before it failed, when known. */
		readonly run?: CallRun,
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
