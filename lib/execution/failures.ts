import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js';

export type CallFailureStatus = 'timeout' | 'cancelled' | 'serverError' | 'connectionLost';

export interface CallFailure {
	status: CallFailureStatus;
	/** What the model (or a person) reads: what happened and what to do about it. */
	text: string;
}

/** Turns a failed `tools/call` into words, with the hint that raw `-32000`/`-32001` codes lack. */
export function describeCallFailure(
	error: unknown,
	context: { tool: string; timeoutMs: number; stderrTail: string },
): CallFailure {
	const { tool, timeoutMs, stderrTail } = context;
	const stderr = stderrTail ? `\nThe server's last output on stderr:\n${stderrTail}` : '';
	if (error instanceof McpError && error.code === ErrorCode.RequestTimeout) {
		return {
			status: 'timeout',
			text: `Tool '${tool}' did not answer within ${timeoutMs} ms (each progress notification restarts that wait), so the call was cancelled. It may be slow on these arguments; try simpler arguments or another approach.`,
		};
	}
	if (error instanceof McpError && error.code === ErrorCode.ConnectionClosed) {
		return {
			status: 'connectionLost',
			text: `The MCP server stopped while running tool '${tool}' (connection closed: it may have crashed), so the call has no result. It will be restarted for the next call.${stderr}`,
		};
	}
	if (error instanceof McpError) {
		return {
			status: 'serverError',
			text: `The MCP server refused the call to tool '${tool}': ${stripCodePrefix(error.message)} (JSON-RPC error ${error.code}).`,
		};
	}
	if (error instanceof Error && error.name === 'AbortError') {
		return {
			status: 'cancelled',
			text: `The call to tool '${tool}' was cancelled before it finished.`,
		};
	}
	const message = error instanceof Error ? error.message : String(error);
	return {
		status: 'connectionLost',
		text: `Could not reach the MCP server for tool '${tool}': ${message}.${stderr}`,
	};
}

/** The SDK prefixes messages with "MCP error -32602: "; the code is reported separately. */
function stripCodePrefix(message: string): string {
	return message.replace(/^MCP error -?\d+:\s*/, '');
}
