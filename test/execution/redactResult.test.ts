import { createRedactor } from '../../lib/json/redact';
import { redactResult } from '../../lib/execution/redactResult';
import type { CallToolResult } from '../../lib/mcp';
import { traceEntry } from '../../lib/trace/entries';

const SECRET = 'sk-canary-40c1f2e9d7';
const redactor = createRedactor({ secrets: [SECRET] });
const b64 = (data: string | Buffer) => Buffer.from(data).toString('base64');
const PNG = Buffer.from('89504e470d0a1a0a0000000d4948445200000001', 'hex');

describe('redactResult', () => {
	it('hides a secret split across adjacent text parts, in each part', () => {
		const result: CallToolResult = {
			content: [
				{ type: 'text', text: `the key is ${SECRET.slice(0, 7)}` },
				{ type: 'text', text: `${SECRET.slice(7)}, see?` },
				{ type: 'resource_link', uri: `https://x.test/?k=${SECRET}`, name: 'link' },
				{ type: 'text', text: 'unrelated' },
			],
		};
		expect(redactResult(result, redactor).content).toEqual([
			{ type: 'text', text: 'the key is [redacted]' },
			{ type: 'text', text: '[redacted], see?' },
			{ type: 'resource_link', uri: 'https://x.test/?k=[redacted]', name: 'link' },
			{ type: 'text', text: 'unrelated' },
		]);
	});

	it('withholds binary data holding the secret in any form, saying so; redacts text-like data in place', () => {
		const result: CallToolResult = {
			content: [
				{
					type: 'image',
					data: b64(Buffer.concat([PNG, Buffer.from(SECRET)])),
					mimeType: 'image/png',
				},
				{
					type: 'resource',
					resource: {
						uri: 'file:///leak.bin',
						mimeType: 'application/octet-stream',
						blob: b64(`prefix ${b64(SECRET)}`),
					},
				},
				{
					type: 'resource',
					resource: {
						uri: 'file:///leak.csv',
						mimeType: 'application/csv',
						blob: b64(`k,${SECRET}\n`),
					},
				},
				{
					type: 'image',
					data: b64(`<svg><text>${SECRET}</text></svg>`),
					mimeType: 'image/svg+xml',
				},
				{ type: 'audio', data: b64(PNG), mimeType: 'audio/wav' },
			],
			structuredContent: { nested: [{ key: SECRET }] },
			_meta: { echo: encodeURIComponent(SECRET) },
		};
		const redacted = redactResult(result, redactor);
		expect(redacted.content).toEqual([
			{
				type: 'text',
				text: '[image image/png withheld: it holds a secret of the credential in use]',
			},
			{
				type: 'text',
				text: '[blob application/octet-stream file:///leak.bin withheld: it holds a secret of the credential in use]',
			},
			{
				type: 'resource',
				resource: {
					uri: 'file:///leak.csv',
					mimeType: 'application/csv',
					blob: b64('k,[redacted]\n'),
				},
			},
			{ type: 'image', data: b64('<svg><text>[redacted]</text></svg>'), mimeType: 'image/svg+xml' },
			// Clean data passes byte for byte.
			{ type: 'audio', data: b64(PNG), mimeType: 'audio/wav' },
		]);
		expect(redacted.structuredContent).toEqual({ nested: [{ key: '[redacted]' }] });
		expect(redacted._meta).toEqual({ echo: '[redacted]' });
	});

	it('withholds text-like data in another encoding (UTF-16, Latin-1) that holds the secret', () => {
		const result: CallToolResult = {
			content: [
				{
					type: 'resource',
					resource: {
						uri: 'file:///k.txt',
						mimeType: 'text/plain',
						blob: b64(Buffer.from(`key=${SECRET}`, 'utf16le')),
					},
				},
			],
		};
		expect(redactResult(result, redactor).content).toEqual([
			{
				type: 'text',
				text: '[blob text/plain file:///k.txt withheld: it holds a secret of the credential in use]',
			},
		]);
	});

	it('leaves a result without secrets as it was', () => {
		const result: CallToolResult = {
			content: [
				{ type: 'text', text: 'plain' },
				{ type: 'image', data: b64(PNG), mimeType: 'image/png' },
			],
			isError: false,
		};
		expect(redactResult(result, redactor)).toEqual(result);
	});
});

describe('traceEntry', () => {
	it('keeps the metadata of a payload nested too deep to store, and says why it left it out', () => {
		let payload: unknown = 'bottom';
		for (let level = 0; level < 5_000; level++) payload = { inner: payload };
		const entry = traceEntry(
			'model.response',
			{ node: 'Model', round: 1, startedAt: 0 },
			{ dialect: 'openaiChat' },
			payload,
			{ payloads: 'full', maxPayloadBytes: 1 << 20, redactor },
		);
		expect(entry).toEqual({
			step: 'model.response',
			node: 'Model',
			round: 1,
			at: '1970-01-01T00:00:00.000Z',
			dialect: 'openaiChat',
			payloadOmitted: 'nested deeper than 1000 levels',
		});
	});
});
