import { canonicalJson, fingerprint } from '../../lib/json/canonical';
import { createRedactor, DEFAULT_SECRET_KEYS, redact } from '../../lib/json/redact';

describe('redact', () => {
	it('replaces secret values anywhere and hides credential keys, without touching the input', () => {
		const input = {
			headers: { Authorization: 'Bearer abc', 'X-Trace': 'ok', 'x-api-key': 'k' },
			log: ['token s3cret-value leaked', { nested: 'prefix-s3cret-value-suffix' }],
			count: 3,
			empty: null,
		};
		const output = redact(input, ['s3cret-value', '', 'k']);
		expect(output).toEqual({
			headers: { Authorization: '[redacted]', 'X-Trace': 'ok', 'x-api-key': '[redacted]' },
			log: ['token [redacted] leaked', { nested: 'prefix-[redacted]-suffix' }],
			count: 3,
			empty: null,
		});
		expect(input.log[0]).toBe('token s3cret-value leaked');
	});

	it('prefers the longest secret when one contains another, and leaves short values alone', () => {
		expect(redact('token-123456 and token-123', ['token-123', 'token-123456'])).toBe(
			'[redacted] and [redacted]',
		);
		expect(redact('mode=prod debug=1', ['prod', '1'])).toBe('mode=prod debug=1');
	});
});

describe('createRedactor', () => {
	const SECRET = 'sk-live-0123456789';

	it('hides secret values everywhere with values(), and secret keys too with all()', () => {
		const redactor = createRedactor({ secrets: [SECRET] });
		const input = {
			messages: [{ role: 'tool', content: `the key is ${SECRET}.` }],
			arguments: { api_key: 'user-supplied-key', password: 'hunter22', query: 'weather' },
		};
		// The conversation: a tool may take an `api_key` argument; only credential values go.
		expect(redactor.values(input)).toEqual({
			messages: [{ role: 'tool', content: 'the key is [redacted].' }],
			arguments: { api_key: 'user-supplied-key', password: 'hunter22', query: 'weather' },
		});
		// Traces, headers, errors: the values of secret keys go as well.
		expect(redactor.all(input)).toEqual({
			messages: [{ role: 'tool', content: 'the key is [redacted].' }],
			arguments: { api_key: '[redacted]', password: '[redacted]', query: 'weather' },
		});
		expect(input.arguments.api_key).toBe('user-supplied-key');
		expect(redactor.all(`Bearer ${SECRET}`)).toBe('Bearer [redacted]');
	});

	it('matches keys on their words: apiKey, X-Api-Key and API_KEY match api_key; max_tokens does not match token', () => {
		const redactor = createRedactor({ secrets: [], keys: ['api_key', 'token'] });
		expect(
			redactor.all({
				apiKey: 'v1-value',
				'X-Api-Key': 'v2-value',
				API_KEY: 'v3-value',
				x_api_key_id: 'v4-value',
				apikey: 'one-word',
				api: 'not-a-key',
				key: 'not-a-key',
				accessToken: 'v5-value',
				'refresh-token': 'v6-value',
				max_tokens: 256,
				tokens: 'plural-is-another-word',
				tokenizer: 'cl100k',
			}),
		).toEqual({
			apiKey: '[redacted]',
			'X-Api-Key': '[redacted]',
			API_KEY: '[redacted]',
			x_api_key_id: '[redacted]',
			apikey: 'one-word',
			api: 'not-a-key',
			key: 'not-a-key',
			accessToken: '[redacted]',
			'refresh-token': '[redacted]',
			max_tokens: 256,
			tokens: 'plural-is-another-word',
			tokenizer: 'cl100k',
		});
	});

	it('keeps numbers under a secret key (counts such as promptTokenCount), and searches objects and arrays under one instead of hiding them', () => {
		const redactor = createRedactor({ secrets: [SECRET] });
		const schema = {
			type: 'object',
			properties: { password: { type: 'string', minLength: 8 }, token: { type: 'string' } },
			required: ['password'],
		};
		expect(redactor.all(schema)).toEqual(schema);
		expect(
			redactor.all({
				pin: 1234,
				secret: 987654,
				usageMetadata: { promptTokenCount: 10, totalTokenCount: 12 },
				authorization: { scheme: 'Bearer', credentials: SECRET, token: 'nested-token' },
				cookies: ['session=abcdef123'],
				cookie: ['a-list-of-values'],
				flag: true,
				empty: null,
			}),
		).toEqual({
			pin: 1234,
			secret: 987654,
			usageMetadata: { promptTokenCount: 10, totalTokenCount: 12 },
			authorization: { scheme: 'Bearer', credentials: '[redacted]', token: '[redacted]' },
			cookies: ['session=abcdef123'],
			cookie: ['a-list-of-values'],
			flag: true,
			empty: null,
		});
	});

	it('uses the default keys unless given others, and none with an empty list', () => {
		expect(DEFAULT_SECRET_KEYS).toEqual([
			'password',
			'token',
			'secret',
			'api_key',
			'apikey',
			'authorization',
			'cookie',
		]);
		const input = { Cookie: 'session=abc', clientSecret: 'shh-value', ssn: '123-45-6789' };
		expect(createRedactor({ secrets: [] }).all(input)).toEqual({
			Cookie: '[redacted]',
			clientSecret: '[redacted]',
			ssn: '123-45-6789',
		});
		expect(createRedactor({ secrets: [], keys: ['ssn'] }).all(input)).toEqual({
			Cookie: 'session=abc',
			clientSecret: 'shh-value',
			ssn: '[redacted]',
		});
		expect(createRedactor({ secrets: [], keys: [] }).all(input)).toEqual(input);
	});

	it('finds secret keys inside JSON held as text, such as a tool call’s arguments string, in all() only', () => {
		const redactor = createRedactor({ secrets: [] });
		const call = { function: { name: 'login', arguments: '{"user":"ada","password":"hunter22"}' } };
		expect(redactor.all(call)).toEqual({
			function: { name: 'login', arguments: '{"user":"ada","password":"[redacted]"}' },
		});
		expect(redactor.values(call)).toEqual(call);
		// Text that is not JSON, or JSON with nothing to hide, stays byte for byte.
		for (const text of ['{not json', '{ "user": "ada" }', '[1, 2]', 'plain'])
			expect(redactor.all({ text })).toEqual({ text });
	});

	it('hides the values at dotted paths, * standing for any key or index, in all() only', () => {
		const redactor = createRedactor({
			secrets: [],
			keys: [],
			paths: ['messages.*.content', 'trace.0.payload.arguments.ssn', 'profile'],
		});
		const input = {
			messages: [
				{ role: 'user', content: 'my ssn is 123-45-6789' },
				{ role: 'assistant', content: null, name: 'kept' },
			],
			trace: [
				{
					step: 'arguments.validation',
					payload: { arguments: { ssn: '123-45-6789', zip: '12345' } },
				},
				{ step: 'tools.call.request', payload: { arguments: { ssn: '987-65-4321' } } },
			],
			profile: { name: 'Ann', tags: ['a'] },
			content: 'not under messages',
		};
		expect(redactor.all(input)).toEqual({
			messages: [
				{ role: 'user', content: '[redacted]' },
				{ role: 'assistant', content: '[redacted]', name: 'kept' },
			],
			trace: [
				{
					step: 'arguments.validation',
					payload: { arguments: { ssn: '[redacted]', zip: '12345' } },
				},
				{ step: 'tools.call.request', payload: { arguments: { ssn: '987-65-4321' } } },
			],
			profile: '[redacted]',
			content: 'not under messages',
		});
		expect(redactor.values(input)).toEqual(input);
		// A path that leads nowhere changes nothing.
		expect(
			createRedactor({ secrets: [], paths: ['messages.5.content', 'nothing.*'] }).all({
				messages: [],
			}),
		).toEqual({ messages: [] });
	});

	it('treats values shorter than six characters as settings, not secrets', () => {
		const redactor = createRedactor({ secrets: ['prod', '1', 'true', '', '12345', '123456'] });
		expect(redactor.values('mode=prod debug=1 verbose=true id=12345')).toBe(
			'mode=prod debug=1 verbose=true id=12345',
		);
		expect(redactor.values('pin 123456 and 1234567')).toBe('pin [redacted] and [redacted]7');
		expect(redactor.all({ env: 'prod', level: 1 })).toEqual({ env: 'prod', level: 1 });
	});
});

describe('canonical JSON', () => {
	it('is independent of key order at every depth', () => {
		expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: 2 } })).toBe(
			'{"a":{"c":2,"d":[1,{"y":2,"z":1}]},"b":1}',
		);
		expect(fingerprint({ a: 1, b: 2 })).toBe(fingerprint({ b: 2, a: 1 }));
		expect(fingerprint({ a: 1 })).not.toBe(fingerprint({ a: 2 }));
		expect(fingerprint([])).toMatch(/^sha256:[0-9a-f]{16}$/);
	});
});
