import { runToolCall, type CallContext } from '../../lib/execution/runToolCall';
import type { ToolServer } from '../../lib/execution/toolServer';
import { createRedactor } from '../../lib/json/redact';
import { SchemaValidator } from '../../lib/schema/validator';

const SECRET = 'sk-canary-3f9a20d7c1';
const tool = { name: 'lookup', server: 'api', inputSchema: { type: 'object' } };
const call = { id: 'call_1', name: 'lookup', arguments: {}, rawArguments: '{}' };

/** runToolCall as a library caller makes it, with the server given. */
function contextWith(server: ToolServer): CallContext {
	return {
		server,
		validator: new SchemaValidator(),
		storeBinary: async () => 'binary',
		options: { timeoutMs: 5_000 },
		redactor: createRedactor({ secrets: [SECRET] }),
	};
}

describe('runToolCall', () => {
	it("keeps the credential's secrets out of the tool message when the server's failure quotes them", async () => {
		const server: ToolServer = {
			callTool: async () => {
				throw new Error(`Upstream refused the key ${SECRET}`);
			},
			stderrTail: () => `booting with ${SECRET}`,
		};
		const outcome = await runToolCall(call, async () => tool, contextWith(server));
		expect(outcome.message.isError).toBe(true);
		expect(outcome.message.content).toContain('Upstream refused the key [redacted]');
		expect(JSON.stringify(outcome.message)).not.toContain(SECRET);
	});

	const answering = (result: Record<string, unknown>): ToolServer => ({
		callTool: async () => result as never,
		stderrTail: () => '',
	});

	it('gives the model the structured content when the text parts say nothing, however many there are', async () => {
		const empty = [
			{ type: 'text', text: '' },
			{ type: 'text', text: '' },
		];
		const outcome = await runToolCall(
			call,
			async () => tool,
			contextWith(answering({ content: empty, structuredContent: { total: 42 } })),
		);
		expect(outcome.message.content).toBe('{"total":42}');
	});

	it('calls the server when only a pattern left out could object, and says which pattern was not checked', async () => {
		const slugTool = {
			...tool,
			inputSchema: {
				type: 'object',
				properties: { slug: { type: 'string', pattern: '^(?=a)(a+)+$' } },
			},
		};
		const slugCall = { ...call, arguments: { slug: `${'a'.repeat(40)}!` } };
		const outcome = await runToolCall(
			slugCall,
			async () => slugTool,
			contextWith(answering({ content: [{ type: 'text', text: 'done' }] })),
		);
		expect(outcome.status).toBe('ok');
		expect(outcome.check).toMatchObject({
			status: 'valid',
			reason: expect.stringContaining('pattern "^(?=a)(a+)+$" was not checked'),
		});
	});

	it('calls the server with arguments it could not check against a schema that refers to itself without end', async () => {
		const endless = { ...tool, inputSchema: { type: 'object', allOf: [{ $ref: '#' }] } };
		const outcome = await runToolCall(
			call,
			async () => endless,
			contextWith(answering({ content: [{ type: 'text', text: 'done' }] })),
		);
		expect(outcome.status).toBe('ok');
		expect(outcome.check).toMatchObject({
			status: 'unchecked',
			reason: expect.stringContaining('refers to itself without end'),
		});
	});

	it('leaves the arguments unchecked, rather than fail the item, when a check throws', async () => {
		const context = contextWith(answering({ content: [{ type: 'text', text: 'done' }] }));
		jest.spyOn(context.validator, 'check').mockImplementation(() => {
			throw new Error('validator broke');
		});
		const outcome = await runToolCall(call, async () => tool, context);
		expect(outcome.status).toBe('ok');
		expect(outcome.check).toMatchObject({
			status: 'unchecked',
			reason: 'the check failed: validator broke',
		});
	});

	it('says an error came without a message rather than send blank lines', async () => {
		const outcome = await runToolCall(
			call,
			async () => tool,
			contextWith(
				answering({
					isError: true,
					content: [
						{ type: 'text', text: '' },
						{ type: 'text', text: ' ' },
					],
				}),
			),
		);
		expect(outcome.message).toMatchObject({
			isError: true,
			content: '(the tool reported an error without a message)',
		});
	});
});
