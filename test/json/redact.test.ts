import { canonicalJson, fingerprint } from '../../lib/json/canonical';
import { redact } from '../../lib/json/redact';

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
		expect(redact('token-123456 and token-123', ['token-123', 'token-123456'])).toBe('[redacted] and [redacted]');
		expect(redact('mode=prod debug=1', ['prod', '1'])).toBe('mode=prod debug=1');
	});
});

describe('canonical JSON', () => {
	it('is independent of key order at every depth', () => {
		expect(canonicalJson({ b: 1, a: { d: [1, { z: 1, y: 2 }], c: 2 } })).toBe('{"a":{"c":2,"d":[1,{"y":2,"z":1}]},"b":1}');
		expect(fingerprint({ a: 1, b: 2 })).toBe(fingerprint({ b: 2, a: 1 }));
		expect(fingerprint({ a: 1 })).not.toBe(fingerprint({ a: 2 }));
		expect(fingerprint([])).toMatch(/^sha256:[0-9a-f]{16}$/);
	});
});
