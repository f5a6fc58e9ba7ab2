import { readFileSync } from 'node:fs';
import { outputOf } from '../support/engine';
import * as mcp from '../support/mcpWorkflow';

mcp.stopServersAfterAll();

const credentials = mcp.faultCredentials();
const execute = mcp.mcpClientNode('Execute', {
	operation: 'executeToolCalls',
	options: { concurrency: 6 },
});

/** The item's conversation, typed: what our nodes output. */

const unreadable = (tool: string, reason: string) =>
	`The arguments for tool '${tool}' could not be read: ${reason}. The server was not called. Send the arguments as one JSON object.`;
const mismatch = (tool: string, ...issues: string[]) =>
	`The arguments for tool '${tool}' do not match its input schema, so the server was not called:\n${issues.join('\n')}\nFix these and call the tool again.`;

/** A call as a model sends it: the raw string, and `arguments` parsed from it when it is a JSON object. */
function rawCall(id: string, name: string, rawArguments: string) {
	let parsed: unknown = null;
	try {
		parsed = JSON.parse(rawArguments);
	} catch {
		// Stays null, as a dialect leaves it for text that is not JSON.
	}
	const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
	return { id, name, arguments: isObject ? parsed : null, rawArguments };
}
const objectCall = (id: string, name: string, args: Record<string, unknown>) =>
	rawCall(id, name, JSON.stringify(args));

const validOrder = {
	customer: { name: 'Ann', email: 'ann@example.com' },
	items: [{ sku: 'ABC-123', quantity: 2 }],
	priority: 'high',
	note: null,
};
const order = (changes: Record<string, unknown>) => ({ ...validOrder, ...changes });
const line = (changes: Record<string, unknown>) =>
	order({ items: [{ sku: 'ABC-123', quantity: 2, ...changes }] });
const TWO_MB = 2 * 1024 * 1024;

interface BadCase {
	id: string;
	call: Record<string, unknown>;
	content: string;
}

const badCases: BadCase[] = [
	{
		id: 'trailing_comma',
		call: rawCall('trailing_comma', 'echo', '{"text": "hi",}'),
		content: unreadable('echo', 'not valid JSON: trailing comma at position 13'),
	},
	{
		id: 'code_fence',
		call: rawCall('code_fence', 'echo', '```json\n{"text": "hi"}\n```'),
		content: unreadable(
			'echo',
			'arguments are wrapped in a Markdown code fence: send the bare JSON object without ```',
		),
	},
	{
		id: 'single_quotes',
		call: rawCall('single_quotes', 'echo', "{'text': 'hi'}"),
		content: unreadable(
			'echo',
			'not valid JSON: single quotes at position 1, JSON needs double quotes around keys and strings',
		),
	},
	{
		id: 'plain_text',
		call: rawCall('plain_text', 'echo', 'Please echo hello'),
		content: unreadable('echo', 'not valid JSON, this is plain text: "Please echo hello"'),
	},
	{
		id: 'empty_array',
		call: rawCall('empty_array', 'submit_order', '[]'),
		content: unreadable('submit_order', 'must be a JSON object, got array'),
	},
	{
		id: 'null',
		call: rawCall('null', 'submit_order', 'null'),
		content: unreadable('submit_order', 'must be a JSON object, got null'),
	},
	{
		id: 'number',
		call: rawCall('number', 'echo', '42'),
		content: unreadable('echo', 'must be a JSON object, got number'),
	},
	{
		id: 'string_literal',
		call: rawCall('string_literal', 'echo', '"hi"'),
		content: unreadable('echo', 'must be a JSON object, got string'),
	},
	{
		id: 'truncated',
		call: rawCall(
			'truncated',
			'submit_order',
			'{"customer": {"name": "Ann"}, "items": [{"sku": "ABC-1',
		),
		content: unreadable(
			'submit_order',
			'not valid JSON: it ends after 54 characters before the JSON is complete (truncated?)',
		),
	},
	{
		id: 'encoded_twice',
		call: rawCall('encoded_twice', 'submit_order', JSON.stringify(JSON.stringify(validOrder))),
		content: unreadable(
			'submit_order',
			'must be a JSON object, got a string that holds JSON (encoded twice): send the object itself',
		),
	},
	{
		id: 'quantity_as_string',
		call: objectCall('quantity_as_string', 'submit_order', line({ quantity: '2' })),
		content: mismatch(
			'submit_order',
			"- '/items/0/quantity' must be integer (schema rule #/properties/items/items/properties/quantity/type)",
		),
	},
	{
		id: 'items_as_object',
		call: objectCall(
			'items_as_object',
			'submit_order',
			order({ items: { sku: 'ABC-123', quantity: 2 } }),
		),
		content: mismatch(
			'submit_order',
			"- '/items' must be array (schema rule #/properties/items/type)",
		),
	},
	{
		id: 'missing_customer',
		call: objectCall('missing_customer', 'submit_order', { items: validOrder.items }),
		content: mismatch(
			'submit_order',
			"- the arguments object must have required property 'customer' (schema rule #/required)",
		),
	},
	{
		id: 'missing_items',
		call: objectCall('missing_items', 'submit_order', { customer: validOrder.customer }),
		content: mismatch(
			'submit_order',
			"- the arguments object must have required property 'items' (schema rule #/required)",
		),
	},
	{
		id: 'missing_sku',
		call: objectCall('missing_sku', 'submit_order', order({ items: [{ quantity: 1 }] })),
		content: mismatch(
			'submit_order',
			"- '/items/0' must have required property 'sku' (schema rule #/properties/items/items/required)",
		),
	},
	{
		id: 'undeclared_root',
		call: objectCall('undeclared_root', 'submit_order', order({ coupon: 'FREE' })),
		content: mismatch(
			'submit_order',
			"- the arguments object has an undeclared property 'coupon' (schema rule #/additionalProperties)",
		),
	},
	{
		id: 'undeclared_nested',
		call: objectCall(
			'undeclared_nested',
			'submit_order',
			order({ customer: { name: 'Ann', phone: '555' } }),
		),
		content: mismatch(
			'submit_order',
			"- '/customer' has an undeclared property 'phone' (schema rule #/properties/customer/additionalProperties)",
		),
	},
	{
		id: 'enum',
		call: objectCall('enum', 'submit_order', order({ priority: 'urgent' })),
		content: mismatch(
			'submit_order',
			`- '/priority' must be one of ["low","normal","high"] (schema rule #/properties/priority/enum)`,
		),
	},
	{
		id: 'pattern',
		call: objectCall('pattern', 'submit_order', line({ sku: 'abc-12' })),
		content: mismatch(
			'submit_order',
			`- '/items/0/sku' must match pattern "^[A-Z]{3}-[0-9]{3}$" (schema rule #/properties/items/items/properties/sku/pattern)`,
		),
	},
	{
		id: 'minimum',
		call: objectCall('minimum', 'submit_order', line({ quantity: 0 })),
		content: mismatch(
			'submit_order',
			"- '/items/0/quantity' must be >= 1 (schema rule #/properties/items/items/properties/quantity/minimum)",
		),
	},
	{
		id: 'format',
		call: objectCall(
			'format',
			'submit_order',
			order({ customer: { name: 'Ann', email: 'ann at example' } }),
		),
		content: mismatch(
			'submit_order',
			`- '/customer/email' must match format "email" (schema rule #/properties/customer/properties/email/format)`,
		),
	},
	{
		id: 'min_items',
		call: objectCall('min_items', 'submit_order', order({ items: [] })),
		content: mismatch(
			'submit_order',
			"- '/items' must NOT have fewer than 1 items (schema rule #/properties/items/minItems)",
		),
	},
	{
		id: 'wrong_text_type',
		call: objectCall('wrong_text_type', 'echo', { text: 42 }),
		content: mismatch('echo', "- '/text' must be string (schema rule #/properties/text/type)"),
	},
	{
		id: 'huge_undeclared',
		call: objectCall('huge_undeclared', 'echo', { text: 'hi', attachment: 'x'.repeat(TWO_MB) }),
		content: mismatch(
			'echo',
			"- the arguments object has an undeclared property 'attachment' (schema rule #/additionalProperties)",
		),
	},
	{
		id: 'huge_plain_text',
		call: rawCall('huge_plain_text', 'echo', `Here is the file: ${'y'.repeat(TWO_MB)}`),
		content: unreadable(
			'echo',
			`not valid JSON, this is plain text: ${JSON.stringify(`Here is the file: ${'y'.repeat(182)}…`)} (${TWO_MB + 18} characters)`,
		),
	},
	{
		// A person (an approval step) replaced the parsed arguments; the valid raw string no longer counts.
		id: 'edited_to_array',
		call: {
			id: 'edited_to_array',
			name: 'echo',
			arguments: ['hi'],
			rawArguments: '{"text": "hi"}',
		},
		content: unreadable('echo', 'must be a JSON object, got array'),
	},
	{
		// No arguments at all mean {}: then the required properties are missing.
		id: 'empty_string',
		call: { id: 'empty_string', name: 'submit_order', arguments: null, rawArguments: '' },
		content: mismatch(
			'submit_order',
			"- the arguments object must have required property 'customer' (schema rule #/required)",
			"- the arguments object must have required property 'items' (schema rule #/required)",
		),
	},
	{
		// This item's tool definition is stricter than the server's own (which takes {}): had the call
		// gone through, the server would have counted it.
		id: 'counter_stricter_schema',
		call: objectCall('counter_stricter_schema', 'counter', {}),
		content: mismatch(
			'counter',
			"- the arguments object must have required property 'reason' (schema rule #/required)",
		),
	},
	{
		id: 'counter_wrong_type',
		call: objectCall('counter_wrong_type', 'counter', { reason: 5 }),
		content: mismatch(
			'counter',
			"- '/reason' must be string (schema rule #/properties/reason/type)",
		),
	},
];

const strictCounter = {
	name: 'counter',
	server: 'fault-server',
	mcpName: 'counter',
	description: 'Counts calls in this server process.',
	inputSchema: { type: 'object', properties: { reason: { type: 'string' } }, required: ['reason'] },
};

/** One execution of the given calls in one item; the tool messages keyed by call id. */
async function runCalls(calls: Array<Record<string, unknown>>) {
	const run = await mcp.runMcpChain([execute], {
		credentials,
		inputItems: [{ json: { toolCalls: calls } }],
	});
	const messages = mcp.toolMessages(outputOf(run, 'Execute')[0].json);
	return Object.fromEntries(messages.map((message) => [message.tool_call_id, message]));
}

/** Bytes the process has read so far (its stdin, for a stdio server). */
const bytesRead = (pid: number) =>
	Number(/^rchar: (\d+)$/m.exec(readFileSync(`/proc/${pid}/io`, 'utf8'))![1]);

describe('MCP Client: bad tool-call arguments', () => {
	it(`refuses ${badCases.length} kinds of bad arguments, one item each, without calling the server, and runs the valid call`, async () => {
		expect(badCases.length).toBeGreaterThanOrEqual(24);
		const before = await runCalls([
			objectCall('pid_before', 'pid', {}),
			objectCall('count_before', 'counter', {}),
		]);
		const pid = before.pid_before.structuredContent!.pid as number;
		const countBefore = before.count_before.structuredContent!.count as number;
		const readBefore = bytesRead(pid);

		const valid = objectCall('valid_order', 'submit_order', validOrder);
		const cases = [
			...badCases.slice(0, 12),
			{ id: 'valid_order', call: valid, content: '' },
			...badCases.slice(12),
		];
		const inputItems = cases.map(({ id, call }) => ({
			json: {
				ticket: id,
				...(id.startsWith('counter_') ? { tools: [strictCounter] } : {}),
				toolCalls: [call],
			},
		}));
		const run = await mcp.runMcpChain([execute], { credentials, inputItems });
		const items = outputOf(run, 'Execute');

		// No item is lost, none is reordered, each is paired with its input.
		expect(items.map((item) => item.json.ticket)).toEqual(cases.map(({ id }) => id));
		expect(items.map((item) => item.pairedItem)).toEqual(
			cases.map((_, index) => ({ item: index })),
		);

		for (const [index, { id, call, content }] of cases.entries()) {
			const { json } = items[index];
			mcp.expectConversationItem(json);
			expect(mcp.conversationOf(json).toolCalls).toEqual([]);
			const messages = mcp.toolMessages(json);
			expect(messages).toHaveLength(1);
			const trace = mcp.conversationOf(json).trace;
			if (id === 'valid_order') continue;
			expect({ id, message: messages[0] }).toEqual({
				id,
				message: { role: 'tool', tool_call_id: id, name: call.name, isError: true, content },
			});
			// Checked and refused: no tools.call.request, the server was not called.
			expect({ id, steps: trace.map((entry) => [entry.step, entry.callId]) }).toEqual({
				id,
				steps: [
					['arguments.validation', id],
					['tools.call.result', id],
				],
			});
			const [validation, result] = trace;
			expect({ id, status: result.status, error: (result.payload as any)?.error }).toEqual({
				id,
				status: 'invalidArguments',
				error: content,
			});
			const unparseable = content.startsWith(
				`The arguments for tool '${call.name}' could not be read`,
			);
			expect({ id, status: validation.status }).toEqual({
				id,
				status: unparseable ? 'unparseable' : 'invalid',
			});
			if (unparseable)
				expect({ id, reason: validation.reason }).toEqual({ id, reason: expect.any(String) });
			else
				expect({ id, issues: validation.issues }).toEqual({
					id,
					issues: expect.arrayContaining([expect.anything()]),
				});
			if (id.startsWith('huge_')) {
				// Megabytes of arguments are measured, not copied into the trace.
				expect({
					id,
					bytes: validation.bytes,
					omitted: validation.payloadOmitted,
					payload: validation.payload,
				}).toEqual({
					id,
					bytes: expect.any(Number),
					omitted: expect.stringContaining('payload limit'),
					payload: undefined,
				});
				expect(validation.bytes).toBeGreaterThan(TWO_MB);
				expect(JSON.stringify(trace).length).toBeLessThan(64 * 1024);
			} else if (!unparseable) {
				// Schema mismatches: the arguments as parsed.
				expect({ id, payload: validation.payload }).toEqual({
					id,
					payload: (call.arguments as object | null) ?? {},
				});
			} else if (typeof call.arguments !== 'object' || call.arguments === null) {
				// Unreadable text: the raw text as the model sent it.
				expect({ id, payload: validation.payload }).toEqual({ id, payload: call.rawArguments });
			}
			// Error texts stay short whatever the model sent.
			expect(messages[0].content.length).toBeLessThan(2048);
		}

		const validJson = items[12].json;
		expect(mcp.toolMessages(validJson)).toEqual([
			{
				role: 'tool',
				tool_call_id: 'valid_order',
				name: 'submit_order',
				content: JSON.stringify(validOrder),
				structuredContent: { received: validOrder },
			},
		]);
		const validTrace = mcp.conversationOf(validJson).trace;
		expect(validTrace.map((entry) => entry.step)).toEqual([
			'arguments.validation',
			'tools.call.request',
			'tools.call.result',
		]);
		expect(validTrace[0]).toMatchObject({
			status: 'valid',
			callId: 'valid_order',
			payload: validOrder,
		});
		expect(validTrace[1]).toMatchObject({
			callId: 'valid_order',
			payload: { name: 'submit_order', arguments: validOrder },
		});
		expect(validTrace[2]).toMatchObject({
			status: 'ok',
			callId: 'valid_order',
			payload: { structuredContent: { received: validOrder } },
		});

		// The server was not called for any bad call: the count rose by the one call below only (the
		// stricter counter items did not reach it), and the 4 MB of bad arguments never crossed its stdin.
		const after = await runCalls([
			objectCall('count_after', 'counter', {}),
			objectCall('pid_after', 'pid', {}),
		]);
		expect(after.pid_after.structuredContent).toEqual({ pid });
		expect(after.count_after.structuredContent).toEqual({ count: countBefore + 1 });
		expect(bytesRead(pid) - readBefore).toBeLessThan(256 * 1024);
	});
});
