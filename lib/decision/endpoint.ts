import type { TraceEntry } from '../conversation/types';
import type { Dialect, EndpointConfig } from '../dialects/types';
import { callModel, type Exchange, type ModelCallOptions } from '../model/transport';
import type { Recording } from '../trace/recording';

/** One turn's request: the body the dialect built, the model and stream choice, and the round it is. */
export interface TurnRequest {
	body: unknown;
	model: string;
	stream: boolean;
	round: number;
	/** The conversation's trace before this turn: where a recording finds its place. */
	trace: readonly TraceEntry[];
	/** Given the answer's text as a streamed answer brings it. */
	onText?: (text: string) => void;
}

/** What answers a turn's request: the model API, or a recorded run in its place. */
export interface ModelEndpoint {
	/** True when a recording answers: the trace says so, with no URL, headers or attempts. */
	readonly replayed: boolean;
	exchange(request: TurnRequest): Promise<Exchange<unknown>>;
}

/** The model API at `config`, called over HTTP in the dialect's wire format. */
export function liveModelEndpoint(
	dialect: Dialect,
	config: EndpointConfig,
	options: ModelCallOptions,
): ModelEndpoint {
	return {
		replayed: false,
		exchange: (request) => callModel(dialect, config, request, options),
	};
}

/**
 * The recorded answer of each round, given only when the request is the recorded one. The
 * recording is read when a turn first asks for it: a conversation Max Rounds stops never does.
 */
export function recordedModelEndpoint(recording: () => Promise<Recording>): ModelEndpoint {
	return {
		replayed: true,
		exchange: async ({ body, round, trace }) => {
			const recorded = await recording();
			const response = recorded.modelResponse({ round, trace }, body);
			// The recorded URL prices the turn; the trace of a replayed request names none.
			const url = recorded.modelRequestUrl({ round, trace });
			return { request: { url, method: 'POST', headers: {}, body }, attempts: [], response };
		},
	};
}
