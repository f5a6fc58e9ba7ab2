import { isRequestOrNotification, LocalAnswers } from '../../lib/mcp/localAnswers';

/** What LineReader or the SSE watch keeps of a long message: its size and first and last 256 bytes. */
const skipped = (message: string) => ({
	bytes: Buffer.byteLength(message),
	head: message.slice(0, 256),
	tail: message.slice(-256),
});
const filler = 'x'.repeat(4096);
const LIMIT = 1024;

describe('a server request too large to read, as handed to the SDK', () => {
	const answers = new LocalAnswers();

	it.each([
		[
			'a string id before its method',
			`{"jsonrpc":"2.0","id":"ask-1","method":"elicitation/create","params":{"message":"${filler}"}}`,
			'ask-1',
		],
		[
			'its id between its method and its params (as the Java SDK writes it)',
			`{"jsonrpc":"2.0","method":"elicitation/create","id":"5d1c-0","params":{"message":"${filler}"}}`,
			'5d1c-0',
		],
		[
			'its method and a negative id after its params',
			`{"params":{"message":"${filler}"},"method":"elicitation/create","jsonrpc":"2.0","id":-4}`,
			-4,
		],
		[
			'a decimal id first',
			`{"jsonrpc":"2.0","id":1.5,"method":"elicitation/create","params":{"message":"${filler}"}}`,
			1.5,
		],
		[
			'an id with an exponent after its params',
			`{"method":"elicitation/create","params":{"message":"${filler}"},"jsonrpc":"2.0","id":1e3}`,
			1000,
		],
		[
			'a numeric id last (as the TypeScript SDK writes it)',
			`{"method":"sampling/createMessage","params":{"text":"${filler}"},"jsonrpc":"2.0","id":7}`,
			7,
		],
	])(
		'answers to the id of a request with %s, telling its method, its size and the limit',
		(_, message, id) => {
			const request = answers.unreadRequest(skipped(message), LIMIT)!;
			expect(request).toMatchObject({ jsonrpc: '2.0', id });
			expect(answers.unreadRequestOf(request as { method: string; params?: unknown })).toEqual({
				method: JSON.parse(message).method,
				bytes: Buffer.byteLength(message),
				limit: LIMIT,
			});
		},
	);

	it('is none for a notification, even one whose params end with an id of their own', () => {
		const message = `{"method":"notifications/message","params":{"data":{"text":"${filler}","id":3}},"jsonrpc":"2.0"}`;
		expect(answers.unreadRequest(skipped(message), LIMIT)).toBeUndefined();
	});

	it('takes an answer whose result holds a method of its own for no request', () => {
		for (const answer of [
			`{"result":{"calls":[{"method":"tools/call"}],"text":"${filler}"},"jsonrpc":"2.0","id":2}`,
			`{"jsonrpc":"2.0","id":2,"result":{"method":"x","text":"${filler}"}}`,
		])
			expect(isRequestOrNotification(skipped(answer))).toBe(false);
	});

	it('is never taken for one when the server sends it, or another session made it', () => {
		const made = new LocalAnswers().unreadRequest(
			skipped(`{"jsonrpc":"2.0","id":1,"method":"elicitation/create","params":{"m":"${filler}"}}`),
			LIMIT,
		) as { method: string; params?: unknown };
		expect(answers.unreadRequestOf(made)).toBeUndefined();
		const { origin: _, ...forged } = made.params as Record<string, unknown>;
		expect(answers.unreadRequestOf({ method: made.method, params: forged })).toBeUndefined();
	});
});
