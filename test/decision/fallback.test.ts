import type { Conversation } from '../../lib/conversation/types';
import type { ModelEndpoint, TurnRequest } from '../../lib/decision/endpoint';
import { fallbackReason } from '../../lib/decision/fallback';
import { takeModelTurn, type DecisionContext } from '../../lib/decision/takeTurn';
import { anthropicDialect } from '../../lib/dialects/anthropic';
import { ModelApiError } from '../../lib/model/errors';
import { answering, turnContext, TURN_SETTINGS } from '../support/turnContext';
import { anthropicMessage, chatCompletion } from '../support/vendorBodies';

const opening: Conversation = {
	messages: [{ role: 'user', content: 'Hi' }],
	tools: [],
	toolCalls: [],
	trace: [],
};

/** An endpoint that fails with `error`, having sent `text` to a chat first when given. */
function failing(error: Error, text?: string): ModelEndpoint & { requests: TurnRequest[] } {
	const requests: TurnRequest[] = [];
	return {
		replayed: false,
		requests,
		exchange: async (request) => {
			requests.push(request);
			if (text) request.onText?.(text);
			throw error;
		},
	};
}

const overloaded = new ModelApiError('Overloaded (overloaded_error)', 'http', 529);

function context(
	primary: ModelEndpoint,
	fallback: ModelEndpoint,
	answer?: DecisionContext['answer'],
): DecisionContext {
	return turnContext(primary, {
		settings: { ...TURN_SETTINGS, bodyFields: { seed: 1 } },
		fallback: {
			dialect: anthropicDialect,
			settings: { model: 'claude-sonnet-4-5', toolChoice: 'auto', stream: false },
			endpoint: fallback,
		},
		...(answer && { answer }),
	});
}

describe('a fallback model', () => {
	it('answers when the first fails after its retries, in its own dialect, and the trace says why', async () => {
		const primary = failing(overloaded);
		const fallback = answering(anthropicMessage([{ type: 'text', text: 'Hello.' }]));
		const { conversation } = await takeModelTurn(opening, context(primary, fallback));
		expect(conversation.answer).toBe('Hello.');
		expect(fallback.requests[0].body).toMatchObject({
			model: 'claude-sonnet-4-5',
			max_tokens: 4096,
		});
		const [request, response] = conversation.trace;
		const detail = {
			instead: { dialect: 'openaiChat', model: 'gpt-test' },
			because: 'HTTP 529: Overloaded (overloaded_error)',
		};
		expect(request).toMatchObject({
			step: 'model.request',
			dialect: 'anthropic',
			fallback: detail,
		});
		expect(response).toMatchObject({
			step: 'model.response',
			dialect: 'anthropic',
			fallback: detail,
		});
		expect(conversation.usage?.modelCalls).toBe(1);
	});

	it.each([
		['a refused request (400)', new ModelApiError('Bad request', 'http', 400)],
		['a wrong key (401)', new ModelApiError('Unauthorized', 'http', 401)],
		['a cancel', new ModelApiError('The request was cancelled', 'cancelled')],
	])('is not asked after %s: the first failure stands', async (_what, error) => {
		const fallback = answering(anthropicMessage([{ type: 'text', text: 'Hello.' }]));
		await expect(takeModelTurn(opening, context(failing(error), fallback))).rejects.toBe(error);
		expect(fallback.requests).toHaveLength(0);
	});

	it('answers when the stream of the first model broke off midway, none of its text sent to a chat', async () => {
		const broken = new ModelApiError('The stream broke off after 3 chunks', 'incompleteStream');
		const primary = failing(broken, 'Hel');
		const fallback = answering(anthropicMessage([{ type: 'text', text: 'Hello.' }]));
		const { conversation } = await takeModelTurn(opening, context(primary, fallback));
		expect(conversation.answer).toBe('Hello.');
		expect(conversation.trace[0]).toMatchObject({
			fallback: { because: 'The stream broke off after 3 chunks' },
		});
	});

	it('fails, when it fails too, naming the first failure beside its own', async () => {
		const refused = new ModelApiError('Invalid API key', 'http', 401);
		const attempt = takeModelTurn(opening, context(failing(overloaded), failing(refused)));
		await expect(attempt).rejects.toBe(refused);
		expect(refused).toMatchObject({ failure: 'http', status: 401 });
		expect(refused.message).toBe(
			'Invalid API key (asked as the fallback: the first model, gpt-test, failed with HTTP 529: Overloaded (overloaded_error))',
		);
	});

	it('is not asked once text of the first reached the chat: the person would get two answers', async () => {
		const timeout = new ModelApiError('did not answer within 10 ms', 'timeout');
		const primary = failing(timeout, 'Hel');
		const fallback = answering(chatCompletion({ content: 'x' }));
		const answer = { text: jest.fn(), finish: jest.fn(), fail: jest.fn(async () => undefined) };
		await expect(takeModelTurn(opening, context(primary, fallback, answer))).rejects.toBe(timeout);
		expect(fallback.requests).toHaveLength(0);
	});

	it('hands on rate limits, server errors, overloads, timeouts, failed connections and broken streams', () => {
		expect(fallbackReason(new ModelApiError('Slow down', 'http', 429))).toBe('HTTP 429: Slow down');
		expect(fallbackReason(new ModelApiError('Bad gateway', 'http', 502))).toBe(
			'HTTP 502: Bad gateway',
		);
		expect(fallbackReason(new ModelApiError('Overloaded (overloaded_error)', 'http', 200))).toBe(
			'HTTP 200: Overloaded (overloaded_error)',
		);
		expect(fallbackReason(new ModelApiError('ECONNREFUSED', 'connection'))).toBe('ECONNREFUSED');
		expect(fallbackReason(new ModelApiError('too slow', 'timeout'))).toBe('too slow');
		const broken =
			'The stream broke off (terminated) after 12 chunks, before the model finished its turn';
		expect(fallbackReason(new ModelApiError(broken, 'incompleteStream'))).toBe(broken);
		expect(fallbackReason(new ModelApiError('refused by policy', 'refused'))).toBeUndefined();
		expect(fallbackReason(new Error('not an API error'))).toBeUndefined();
	});
});
