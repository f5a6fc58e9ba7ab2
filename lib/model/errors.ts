/** How a call failed; `refused`: the host's outbound policy did not let it leave (never retried). */
export type ModelApiFailure =
	| 'http'
	| 'timeout'
	| 'connection'
	| 'refused'
	| 'cancelled'
	| 'incompleteStream'
	| 'invalidResponse';

/** A model API call that failed; the message is the vendor's own words where it gave any, secrets removed. */
export class ModelApiError extends Error {
	constructor(
		message: string,
		readonly failure: ModelApiFailure,
		readonly status?: number,
		readonly body?: unknown,
	) {
		super(message);
	}
}
