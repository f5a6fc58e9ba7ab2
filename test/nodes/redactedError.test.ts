import { inspect } from 'node:util';
import { NodeApiError, NodeOperationError, type INode } from 'n8n-workflow';
import { createRedactor } from '../../lib/json/redact';
import { redactedError } from '../../nodes/shared/redactedError';
import type { NodeRedaction } from '../../nodes/shared/traceOptions';

const SECRET = 'sk-canary-7d3e91b05a';
const redactor = createRedactor({ secrets: [SECRET] });
const redaction: NodeRedaction = {
	trace: { payloads: 'full', maxPayloadBytes: 1024, redactor },
	redactor,
	item: (json) => redactor.values(json),
	text: (message) => redactor.all(message),
};
const node: INode = {
	id: '1',
	name: 'Model',
	type: 'n8n-nodes-tool-calling.toolCallingModel',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** An HTTP client's error, as such clients make them: the request and the answer on the error. */
function clientError(): Error {
	return Object.assign(new Error('Request failed with status code 401'), {
		config: { url: 'https://api.test/v1', headers: { Authorization: `Bearer ${SECRET}` } },
		response: { status: 401, data: { error: `key ${SECRET} refused` } },
	});
}

describe('redactedError', () => {
	it('replaces a cause whose message cannot be set (a getter, as zod has it) by a redacted copy, and never throws', () => {
		class GetterError extends Error {
			constructor() {
				super();
				Object.defineProperty(this, 'message', { get: () => `bad answer quoting ${SECRET}` });
				this.name = '$ZodError';
			}
		}
		class InheritedGetterError extends Error {
			override get message() {
				return `bad answer quoting ${SECRET}`;
			}
		}
		for (const made of [new GetterError(), new InheritedGetterError()]) {
			const error = redactedError(
				new NodeOperationError(node, new Error('Outer', { cause: made })),
				redaction,
			);
			const cause = (error.cause as Error).cause as Error;
			expect(cause.message).toBe('bad answer quoting [redacted]');
			expect(cause.name).toBe(made.name);
			expect(inspect(error, { depth: 10 })).not.toContain(SECRET);
		}
	});

	it("hides the secret in a cause's other properties, and in the errors an AggregateError holds, keeping their shape", () => {
		const cause = new AggregateError(
			[clientError(), new Error(`second try: ${SECRET}`)],
			'All attempts failed',
		);
		const error = redactedError(
			new NodeOperationError(node, new Error('Outer', { cause }), { description: 'Why' }),
			redaction,
		);

		const printed = inspect(error, { depth: 20 });
		expect(printed).not.toContain(SECRET);
		const [first, second] = ((error.cause as Error).cause as AggregateError).errors as Array<
			Error & Record<string, unknown>
		>;
		expect(first).toBeInstanceOf(Error);
		expect(first.message).toBe('Request failed with status code 401');
		expect(first.config).toEqual({
			url: 'https://api.test/v1',
			headers: { Authorization: '[redacted]' },
		});
		expect(first.response).toEqual({ status: 401, data: { error: 'key [redacted] refused' } });
		expect(second.message).toBe('second try: [redacted]');
		// AggregateError's errors stay where util.inspect shows them, and stay unlisted by Object.keys.
		expect(Object.keys((error.cause as Error).cause as object)).not.toContain('errors');
	});

	it("hides it in a node error's messages, description, context and error response, and in a plain-value cause", () => {
		const apiError = new NodeApiError(
			node,
			{ message: `refused ${SECRET}`, body: { key: SECRET } },
			{ message: `The key ${SECRET} was refused`, description: `key=${SECRET}` },
		);
		apiError.context = { sent: SECRET };
		Object.defineProperty(apiError, 'cause', {
			value: { body: `echo ${SECRET}` },
			configurable: true,
			writable: true,
		});
		const error = redactedError(apiError, redaction);
		expect(inspect(error, { depth: 20 })).not.toContain(SECRET);
		expect(JSON.stringify(error)).not.toContain(SECRET);
		expect(error.message).toBe('The key [redacted] was refused');
		expect(error.description).toBe('key=[redacted]');
		expect(error.context).toEqual({ sent: '[redacted]' });
		expect(error.cause).toEqual({ body: 'echo [redacted]' });
		// n8n's own fields are left as they were.
		expect(error.node).toBe(node);
	});

	it('ends a chain of causes past its bound, and a cycle of causes, without hanging', () => {
		let deepest: Error = new Error(`bottom ${SECRET}`);
		for (let depth = 0; depth < 30; depth++)
			deepest = new Error(`level ${depth}`, { cause: deepest });
		const looped = new Error(`loop ${SECRET}`);
		looped.cause = new Error('back', { cause: looped });
		for (const cause of [deepest, looped]) {
			const error = redactedError(
				new NodeOperationError(node, new Error('top', { cause })),
				redaction,
			);
			expect(inspect(error, { depth: 100 })).not.toContain(SECRET);
		}
	});
});
