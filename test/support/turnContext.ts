import type { ModelEndpoint, TurnRequest } from '../../lib/decision/endpoint';
import type { DecisionContext } from '../../lib/decision/takeTurn';
import { openaiDialect } from '../../lib/dialects/openai';
import type { ModelSettings } from '../../lib/dialects/types';
import { createRedactor } from '../../lib/json/redact';

export const TURN_SETTINGS: ModelSettings = {
	model: 'gpt-test',
	toolChoice: 'auto',
	stream: false,
};

/**
 * An endpoint answering each request with the next of `bodies` (the last one again once they run
 * out), remembering what it was asked.
 */
export function answering(...bodies: unknown[]): ModelEndpoint & { requests: TurnRequest[] } {
	const requests: TurnRequest[] = [];
	return {
		replayed: false,
		requests,
		exchange: async (request) => {
			requests.push(request);
			const response = bodies.length > 1 ? bodies.shift() : bodies[0];
			return {
				request: {
					url: 'https://api.example.com/v1/chat/completions',
					method: 'POST',
					headers: { authorization: '[redacted]' },
					body: request.body,
				},
				attempts: [{ status: 200, durationMs: 3 }],
				response,
			};
		},
	};
}

/** A model turn's context: Chat Completions, TURN_SETTINGS, full trace payloads; `changes` on top. */
export function turnContext(
	endpoint: ModelEndpoint,
	changes: Partial<DecisionContext> = {},
): DecisionContext {
	return {
		nodeName: 'Model',
		dialect: openaiDialect,
		settings: TURN_SETTINGS,
		maxRounds: 10,
		endpoint,
		tracePolicy: {
			payloads: 'full',
			maxPayloadBytes: 1_000_000,
			redactor: createRedactor({ secrets: [] }),
		},
		...changes,
	};
}
