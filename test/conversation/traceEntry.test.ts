import { expectConversationItem } from '../support/contract';

/** An item whose trace is the given entries. */
const withTrace = (...trace: unknown[]) => ({ messages: [], tools: [], toolCalls: [], trace });
const entry = { step: 'tools.list', node: 'List Tools', round: 0, at: '2026-12-02T10:00:00.000Z' };

describe('the schema of a trace entry (docs/trace.md)', () => {
	it('requires step, node, round and at, and allows the step details, payload and sizes', () => {
		expect(() =>
			expectConversationItem(
				withTrace(
					entry,
					{
						...entry,
						step: 'tools.call.result',
						round: 2,
						durationMs: 3,
						server: 'everything',
						callId: 'c1',
						tool: 'add',
						status: 'ok',
						bytes: 12,
						payload: { content: [] },
					},
					{
						...entry,
						step: 'model.response',
						bytes: 4096,
						payloadOmitted: 'Trace Payloads is set to Metadata Only',
						replayed: true,
					},
				),
			),
		).not.toThrow();
		for (const key of ['step', 'node', 'round', 'at'] as const) {
			const { [key]: _left, ...without } = entry;
			expect(() => expectConversationItem(withTrace(without))).toThrow(
				`"missingProperty": "${key}"`,
			);
		}
	});

	it('refuses a round that is not a whole number from 0, a time that is not ISO 8601, and a negative size', () => {
		const refused = (changes: Record<string, unknown>, key: string) =>
			expect(() => expectConversationItem(withTrace({ ...entry, ...changes }))).toThrow(
				`"instancePath": "/trace/0/${key}"`,
			);
		refused({ round: -1 }, 'round');
		refused({ round: 1.5 }, 'round');
		refused({ round: '1' }, 'round');
		refused({ at: 'yesterday' }, 'at');
		refused({ bytes: -1 }, 'bytes');
	});
});
