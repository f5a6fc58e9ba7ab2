import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import {
	CallCancelledError,
	CallTimeoutError,
	ConnectionLostError,
	MalformedResultError,
	ResultTooLargeError,
	UnansweredCallError,
} from '../mcp/callErrors';
import { isServerStatus } from '../mcp/connection';
import { reasonOf } from '../util/errorReason';

export type CallFailureStatus =
	'timeout' | 'cancelled' | 'serverError' | 'connectionLost' | 'resultTooLarge';

export interface CallFailure {
	status: CallFailureStatus;
	/** What the model (or a person) reads: what happened and what to do about it. */
	text: string;
}

/** Turns a failed `tools/call` into words, with the hint that raw `-32000`/`-32001` codes lack. */
export function describeCallFailure(
	error: unknown,
	context: { tool: string; stderrTail: string },
): CallFailure {
	const { tool, stderrTail } = context;
	const stderr = stderrTail ? `\nThe server's last output on stderr:\n${stderrTail}` : '';
	if (error instanceof CallTimeoutError) {
		const what =
			error.limit === 'wait'
				? `Tool '${tool}' did not answer within ${error.ms} ms (each progress notification restarts that wait), so the call was cancelled.`
				: `Tool '${tool}' was still running after ${error.ms} ms, the longest a call may take however much progress it reports, so the call was cancelled.`;
		const server = error.serverAnswers
			? ''
			: ' The server did not answer a ping either, so it was stopped; it will be started afresh for the next call.';
		return {
			status: 'timeout',
			text: `${what}${server} It may be slow on these arguments; try simpler arguments or another approach.`,
		};
	}
	if (error instanceof ConnectionLostError) {
		return {
			status: 'connectionLost',
			text: `The MCP server stopped while running tool '${tool}' (connection closed: it may have crashed), so the call has no result. It will be restarted for the next call.${stderr}`,
		};
	}
	if (error instanceof UnansweredCallError) {
		return {
			status: 'connectionLost',
			text: `The MCP server did not answer the call to tool '${tool}': ${error.message}. The call has no result; the tool may or may not have run.`,
		};
	}
	if (error instanceof ResultTooLargeError) {
		return {
			status: 'resultTooLarge',
			text: `Tool '${tool}' returned more than can be passed on: ${error.message}. The result was dropped (the server still runs); ask for less, such as a narrower query or one page.`,
		};
	}
	if (error instanceof MalformedResultError) {
		return {
			status: 'serverError',
			text: `The MCP server answered the call to tool '${tool}' with something that is not a tools/call result: ${error.message}.`,
		};
	}
	if (error instanceof McpError) {
		return {
			status: 'serverError',
			text: `The MCP server refused the call to tool '${tool}': ${stripCodePrefix(error.message)} (JSON-RPC error ${error.code}).`,
		};
	}
	if (
		error instanceof CallCancelledError ||
		(error instanceof Error && error.name === 'AbortError')
	) {
		const sent = !(error instanceof CallCancelledError) || error.sent;
		return {
			status: 'cancelled',
			text: sent
				? `The call to tool '${tool}' was cancelled before it finished.`
				: `The call to tool '${tool}' was cancelled before it was sent, so it did not run.`,
		};
	}
	if (error instanceof StreamableHTTPError && isServerStatus(error.code)) {
		const said = excerptOf(
			error.message.replace(/^Streamable HTTP error: (Error POSTing to endpoint: )?/, ''),
		);
		return {
			status: 'serverError',
			text:
				error.code === 429
					? `The MCP server refused the call to tool '${tool}' as too many requests (HTTP 429: ${said}). Wait a little before calling it again.`
					: `The MCP server failed on the call to tool '${tool}' (HTTP ${error.code}: ${said}), so the call has no result; the tool may or may not have run.`,
		};
	}
	return {
		status: 'connectionLost',
		text: `Could not reach the MCP server for tool '${tool}': ${reasonOf(error)}.${stderr}`,
	};
}

/** A server's text as quoted in a message: its first 300 characters. */
function excerptOf(text: string): string {
	return text.length > 300 ? `${text.slice(0, 300)}…` : text;
}

/** The SDK prefixes messages with "MCP error -32602: " (a server built on it, once more); the code is reported separately. */
function stripCodePrefix(message: string): string {
	return message.replace(/^(MCP error -?\d+:\s*)+/, '');
}
