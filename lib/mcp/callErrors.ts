/**
 * How a `tools/call` can fail on the client's side, as McpConnection reports it. A JSON-RPC error
 * the server sent stays the SDK's McpError (whatever its code, -32000 included): that is the
 * tool's failure, the connection is fine.
 */

/** The connection is gone (the transport closed, the process ended, the server unreachable). */
export class ConnectionLostError extends Error {
	override name = 'ConnectionLostError';
}

/**
 * The server ended its response to the call without the answer (the stream closed, the connection
 * dropped, an HTTP 202): the tool may or may not have run. The session lives on.
 */
export class UnansweredCallError extends Error {
	override name = 'UnansweredCallError';
}

/** No answer in time; a ping afterwards told whether the server still answers (if not, it was dropped). */
export class CallTimeoutError extends Error {
	override name = 'CallTimeoutError';

	constructor(
		/** `wait`: no answer nor progress within the timeout; `total`: Max Total Time reached despite progress. */
		readonly limit: 'wait' | 'total',
		readonly ms: number,
		readonly serverAnswers: boolean,
	) {
		super(`No answer within ${ms} ms (${limit})`);
	}
}

/** The call was cancelled (the execution stopped): before it finished, or before it was sent at all. */
export class CallCancelledError extends Error {
	override name = 'CallCancelledError';
	constructor(readonly sent: boolean) {
		super(sent ? 'Cancelled before it finished' : 'Cancelled before it was sent');
	}
}

/** The result is more than this client takes: too many bytes, or nested too deep. The connection lives on. */
export class ResultTooLargeError extends Error {
	override name = 'ResultTooLargeError';
}

/** The server answered with something that is not a tools/call result. The connection lives on. */
export class MalformedResultError extends Error {
	override name = 'MalformedResultError';
}
