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

	it('gives back with values() the very value that holds no secret, and a copy of one that does', () => {
		const redactor = createRedactor({ secrets: ['sk-live-abcdef123456'] });
		const clean = { trace: [{ step: 'model.request', payload: { text: 'nothing to hide' } }] };
		expect(redactor.values(clean)).toBe(clean);
		const leaking: { trace: object[] } = {
			trace: [clean.trace[0], { text: 'key sk-live-abcdef123456' }],
		};
		const hidden = redactor.values(leaking);
		expect(hidden).not.toBe(leaking);
		expect(hidden.trace[1]).toEqual({ text: 'key [redacted]' });
		expect(leaking.trace[1]).toEqual({ text: 'key sk-live-abcdef123456' });
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
		// The documented defaults, each as a key the words of a default match.
		const secretKeyed = {
			dbPassword: 'a',
			refresh_token: 'b',
			'client-secret': 'c',
			'X-Api-Key': 'd',
			APIKEY: 'e',
			Authorization: 'f',
			cookie: 'g',
		};
		const hidden = createRedactor({ secrets: [] }).all(secretKeyed);
		expect(Object.values(hidden)).toEqual(DEFAULT_SECRET_KEYS.map(() => '[redacted]'));
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

	it('asks a live list of secrets again at each use: a token renewed meanwhile is hidden too', () => {
		const held = ['first-token-1234'];
		const redactor = createRedactor({ secrets: () => held });
		expect(redactor.values('first-token-1234 second-token-5678')).toBe(
			'[redacted] second-token-5678',
		);
		held.push('second-token-5678');
		expect(redactor.all({ text: 'first-token-1234 second-token-5678' })).toEqual({
			text: '[redacted] [redacted]',
		});
	});

	it('treats values shorter than six characters as settings, not secrets', () => {
		const redactor = createRedactor({ secrets: ['prod', '1', 'true', '', '12345', '123456'] });
		expect(redactor.values('mode=prod debug=1 verbose=true id=12345')).toBe(
			'mode=prod debug=1 verbose=true id=12345',
		);
		expect(redactor.values('pin 123456 and 1234567')).toBe('pin [redacted] and [redacted]7');
		expect(redactor.all({ env: 'prod', level: 1 })).toEqual({ env: 'prod', level: 1 });
	});

	it('hides a secret used as an object key as it hides one in text, and a number that holds one whole', () => {
		const redactor = createRedactor({ secrets: ['sk-Live9xQ', '123456789'] });
		const item = {
			'sk-Live9xQ': 1,
			pin: 123456789,
			other: 1234567890,
			kept: 42,
			'x=sk-Live9xQ': 'a',
		};
		const hidden = { '[redacted]': 1, pin: '[redacted]', other: '[redacted]', kept: 42 };
		for (const redacted of [redactor.values(item), redactor.all(item)])
			expect(redacted).toEqual({ ...hidden, 'x=[redacted]': 'a' });
		// A value without secrets, keys and numbers included, still comes back as it is.
		const clean = { a: { b: [1, 2, 'c'] }, 12345678: true };
		expect(redactor.values(clean)).toBe(clean);
	});
});

describe('secrets in encoded forms', () => {
	const SECRET = 'sk-live/0123+4567 89"ab';
	const redactor = createRedactor({ secrets: [SECRET] });
	const hidden = (text: string) => !redactor.values(text).includes('[redacted]');
	const bytes = Buffer.from(SECRET, 'utf8');

	it('hides base64 and base64url at each of the three byte alignments, inside longer data', () => {
		for (const offset of [0, 1, 2]) {
			const data = Buffer.concat([Buffer.from('xyz'.slice(0, offset)), bytes, Buffer.from('tail')]);
			for (const encoded of [data.toString('base64'), data.toString('base64url')]) {
				const text = `data: ${encoded} end`;
				expect(hidden(text)).toBe(false);
				// What is left of the base64 around the marker cannot decode to the secret.
				expect(Buffer.from(redactor.values(text), 'base64').toString('latin1')).not.toContain(
					SECRET.slice(0, 12),
				);
			}
		}
	});

	it('finds the shortest form of a secret standing alone: the secret itself, or the base64 its bytes alone decide', () => {
		for (const secret of ['abc123', 'пароль12', 'sk-live/0123+4567 89"ab']) {
			const own = createRedactor({ secrets: [secret] });
			const secretBytes = Buffer.from(secret, 'utf8');
			const forms = [secret];
			for (const offset of [0, 1, 2]) {
				const encoded = Buffer.concat([Buffer.alloc(offset), secretBytes]).toString('base64');
				const end = Math.floor((4 * (offset + secretBytes.length)) / 3);
				forms.push(encoded.slice(Math.ceil((4 * offset) / 3), end));
			}
			for (const form of forms) {
				expect(own.values({ value: form })).toEqual({ value: '[redacted]' });
				expect(own.all([form])).toEqual(['[redacted]']);
			}
		}
	});

	it('hides base64 broken into lines, as MIME (76 characters) and PEM (64) write it', () => {
		const data = Buffer.concat([Buffer.from('x'.repeat(40)), bytes, Buffer.from(' tail')]);
		for (const width of [76, 64]) {
			const wrapped = data.toString('base64').replace(new RegExp(`(.{${width}})`, 'g'), '$1\r\n');
			const left = redactor.values(wrapped).replace(/\s/g, '');
			expect(Buffer.from(left, 'base64').toString('latin1')).not.toContain(SECRET.slice(0, 12));
		}
	});

	it('hides URL encoding, hex in either case, and JSON escapes, also mixed', () => {
		const forms = [
			encodeURIComponent(encodeURIComponent(SECRET)),
			encodeURIComponent(SECRET),
			encodeURIComponent(SECRET).toLowerCase().replace(/%2b/g, '%2b'),
			new URLSearchParams({ q: SECRET }).toString().slice(2),
			bytes.toString('hex'),
			bytes.toString('hex').toUpperCase(),
			JSON.stringify(SECRET).slice(1, -1),
			[...SECRET].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
			[...SECRET]
				.map((char, index) =>
					index % 2 ? `\\u${char.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}` : char,
				)
				.join('')
				.replace('"', '\\"'),
		];
		for (const form of forms) {
			const text = `before ${form} after`;
			expect(redactor.values(text)).toBe('before [redacted] after');
		}
		// As JSON held in text: the escaped form of the secret is what the text holds.
		expect(redactor.all({ arguments: JSON.stringify({ note: SECRET }) })).toEqual({
			arguments: '{"note":"[redacted]"}',
		});
	});

	it('hides a secret split across adjacent texts, in each of them, and leaves the rest', () => {
		const cut = 9;
		expect(
			redactor.adjacent([`one ${SECRET.slice(0, cut)}`, `${SECRET.slice(cut)} two`, 'three']),
		).toEqual(['one [redacted]', '[redacted] two', 'three']);
		const encoded = Buffer.from(SECRET).toString('base64');
		expect(
			redactor.adjacent([encoded.slice(0, 5), encoded.slice(5, 20), encoded.slice(20)]),
		).toEqual(['[redacted]', '[redacted]', expect.not.stringContaining(encoded.slice(20, 28))]);
		expect(redactor.adjacent(['nothing', 'here'])).toEqual(['nothing', 'here']);
		expect(createRedactor({ secrets: [] }).adjacent(['a', 'b'])).toEqual(['a', 'b']);
	});

	it('finds a secret in bytes: raw, as UTF-16, or in any text form; not in other bytes', () => {
		const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');
		const carrying = (inner: Buffer) => Buffer.concat([png, inner, png]);
		expect(redactor.foundIn(carrying(bytes))).toBe(true);
		expect(redactor.foundIn(carrying(Buffer.from(SECRET, 'utf16le')))).toBe(true);
		expect(redactor.foundIn(carrying(Buffer.from(bytes.toString('base64'))))).toBe(true);
		expect(redactor.foundIn(carrying(Buffer.from(bytes.toString('hex'))))).toBe(true);
		expect(redactor.foundIn(carrying(Buffer.from('nothing secret')))).toBe(false);
		expect(redactor.foundIn(png)).toBe(false);
	});

	it('leaves ordinary text and base64 data alone', () => {
		const text = 'The sum of 17 and 25 is 42. https://example.com/?q=a+b%20c 0123456789abcdef';
		expect(redactor.values(text)).toBe(text);
		const image = Buffer.alloc(100_000, 7).toString('base64');
		expect(redactor.values(image)).toBe(image);
	});
});

describe('redaction at any depth', () => {
	const deep = (depth: number, leaf: unknown) => {
		let value: unknown = leaf;
		for (let level = 0; level < depth; level++) value = level % 2 ? [value] : { inner: value };
		return value;
	};
	const leafOf = (value: unknown): unknown => {
		let current = value;
		while (current !== null && typeof current === 'object')
			current = Array.isArray(current) ? current[0] : (current as { inner: unknown }).inner;
		return current;
	};

	it('walks values nested 20,000 deep, where recursion would fail, as JSON.parse accepts them', () => {
		const SECRET = 'deep-secret-value';
		const redactor = createRedactor({ secrets: [SECRET], paths: ['*.*.x'] });
		const value = deep(20_000, `the ${SECRET}`);
		expect(leafOf(redactor.values(value))).toBe('the [redacted]');
		expect(leafOf(redactor.all(value))).toBe('the [redacted]');
		const text = JSON.stringify({ token: 'x' }).replace('"x"', '"' + 'x'.repeat(6) + '"');
		const nestedText = '['.repeat(20_000) + text + ']'.repeat(20_000);
		expect(redactor.all(nestedText)).toContain('"token":"[redacted]"');
	});

	it('keeps a __proto__ key as a key, without touching any prototype', () => {
		const parsed = JSON.parse('{"__proto__": {"polluted": "secret-value-1"}, "a": 1}');
		const redacted = createRedactor({ secrets: ['secret-value-1'] }).values(parsed);
		expect(Object.keys(redacted)).toEqual(['__proto__', 'a']);
		expect(JSON.stringify(redacted)).toBe('{"__proto__":{"polluted":"[redacted]"},"a":1}');
		expect(({} as Record<string, unknown>).polluted).toBeUndefined();
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

describe('redaction of shared and cyclic objects', () => {
	it('ends on a cycle and keeps shared objects shared, redacted once', () => {
		const redactor = createRedactor({ secrets: ['cyclic-secret-1'] });
		const shared = { note: 'cyclic-secret-1' };
		const error: Record<string, unknown> = { shared, again: shared };
		error.self = error;
		const redacted = redactor.all(error) as Record<string, any>;
		expect(redacted.self).toBe(redacted);
		expect(redacted.again).toBe(redacted.shared);
		expect(redacted.shared).toEqual({ note: '[redacted]' });
		expect(shared.note).toBe('cyclic-secret-1');
	});

	it('searches a value whose objects are shared over and over, or in a cycle, each object once', () => {
		const redactor = createRedactor({ secrets: ['shared-secret-1'] });
		// 2^60 paths lead to the bottom: walking each path would never end.
		const layered = (bottom: unknown) => {
			let layer: unknown = bottom;
			for (let depth = 0; depth < 60; depth++) layer = { left: layer, right: layer };
			return layer;
		};
		const clean = layered({ note: 'nothing here' });
		expect(redactor.values(clean)).toBe(clean);
		const holding = layered({ note: 'the shared-secret-1' }) as Record<string, unknown>;
		expect(redactor.values(holding)).not.toBe(holding);
		const cycle: Record<string, unknown> = { note: 'nothing here' };
		cycle.self = cycle;
		expect(redactor.values(cycle)).toBe(cycle);
		cycle.more = { deeper: { note: 'the shared-secret-1' } };
		expect((redactor.values(cycle) as { more: unknown }).more).toEqual({
			deeper: { note: 'the [redacted]' },
		});
	});
});

describe('redaction of the output items of one execution', () => {
	/** A tool list whose description counts how often a search reads it. */
	const countedTools = () => {
		const reads = { count: 0 };
		const tool = {
			name: 'echo',
			get description() {
				reads.count++;
				return 'Echoes the message';
			},
		};
		return { tools: [tool], tool, reads };
	};

	it('searches what items share once, and still hides a secret in what each item holds of its own', () => {
		const itemValues = createRedactor({ secrets: ['item-secret-1'] }).valuesOfItems();
		const { tools, tool, reads } = countedTools();
		const first = { tools, messages: [{ role: 'user', content: 'hello' }] };
		expect(itemValues(first)).toBe(first);
		// Later items hold their own copies of the list, with the same tool objects.
		const second = { tools: [...tools], trace: [] };
		expect(itemValues(second)).toBe(second);
		const third = { tools: [tool], messages: [] };
		expect(itemValues(third)).toBe(third);
		expect(reads.count).toBe(1);
		const shared = { role: 'user', content: 'hello' };
		itemValues({ messages: [shared] });
		const holding = { messages: [shared, { role: 'user', content: 'my item-secret-1' }] };
		expect(itemValues(holding)).toEqual({
			messages: [shared, { role: 'user', content: 'my [redacted]' }],
		});
		// Each execution's pass searches anew: an object may have changed in between.
		const next = createRedactor({ secrets: ['item-secret-1'] }).valuesOfItems();
		next({ tools });
		expect(reads.count).toBe(2);
	});

	it('searches again what it found clean once the secrets change: a renewed token is hidden in shared objects too', () => {
		const secrets = ['first-token-1'];
		const itemValues = createRedactor({ secrets: () => secrets }).valuesOfItems();
		const shared = { note: 'holds second-token-2' };
		expect(itemValues({ notes: [shared] })).toEqual({ notes: [shared] });
		secrets[0] = 'second-token-2';
		expect(itemValues({ notes: [shared] })).toEqual({ notes: [{ note: 'holds [redacted]' }] });
	});

	it('remembers nothing found holding a secret, nor what lies deeper than an item’s lists and their entries', () => {
		const itemValues = createRedactor({ secrets: ['deep-secret-1'] }).valuesOfItems();
		const holding = { note: 'the deep-secret-1' };
		expect(itemValues({ list: [holding] })).toEqual({ list: [{ note: 'the [redacted]' }] });
		expect(itemValues({ again: [holding] })).toEqual({ again: [{ note: 'the [redacted]' }] });
		const { tools, reads } = countedTools();
		itemValues({ a: { b: { c: tools } } });
		itemValues({ again: tools });
		expect(reads.count).toBe(2);
	});
});
