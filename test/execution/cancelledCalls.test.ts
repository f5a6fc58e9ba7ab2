import { executePendingCalls } from '../../lib/execution/executeCalls';
import { createRedactor } from '../../lib/json/redact';
import { McpConnection } from '../../lib/mcp';
import { SchemaValidator } from '../../lib/schema/validator';
import { faultStdio, stopAllServers } from '../support/servers';

afterAll(() => stopAllServers());

const slowTool = {
	name: 'slow',
	server: 'faults',
	mcpName: 'slow',
	annotations: { readOnlyHint: true },
	inputSchema: { type: 'object', properties: { ms: { type: 'integer' } }, required: ['ms'] },
};
const redactor = createRedactor({ secrets: [] });
const slowCalls = ['c1', 'c2', 'c3'].map((id) => ({
	id,
	name: 'slow',
	arguments: { ms: 5_000 },
	rawArguments: '{"ms":5000}',
}));

/** Three slow calls of one item, the execution stopped while the first runs. */
async function stoppedWhileRunning(parallelCalls: 'always' | 'never') {
	const connection = await McpConnection.open(faultStdio(), 30_000);
	const stop = new AbortController();
	setTimeout(() => stop.abort(), 300);
	try {
		const { conversation, statuses } = await executePendingCalls(
			{ messages: [], tools: [slowTool], toolCalls: slowCalls, trace: [] },
			{
				server: connection,
				serverLabel: 'faults',
				nodeName: 'Execute',
				tracePolicy: { payloads: 'full', maxPayloadBytes: 1e6, redactor },
				parallelCalls,
				validator: new SchemaValidator(),
				storeBinary: async () => 'binary',
				options: { timeoutMs: 10_000, signal: stop.signal },
				redactor,
			},
		);
		const requested = conversation.trace
			.filter((entry) => entry.step === 'tools.call.request')
			.map((entry) => entry.callId);
		return { statuses, requested, texts: conversation.messages.map((m) => m.content) };
	} finally {
		await connection.close();
	}
}

describe('calls of an execution that is stopped', () => {
	it('one after another: the call running is cancelled, those not yet sent say they did not run and are not traced as sent', async () => {
		const { statuses, requested, texts } = await stoppedWhileRunning('never');
		expect(statuses).toEqual(['cancelled', 'cancelled', 'cancelled']);
		expect(requested).toEqual(['c1']);
		expect(texts).toEqual([
			"The call to tool 'slow' was cancelled before it finished.",
			"The call to tool 'slow' was cancelled before it was sent, so it did not run.",
			"The call to tool 'slow' was cancelled before it was sent, so it did not run.",
		]);
	});

	it('at once: every call was sent, so each is traced as sent and cancelled before it finished', async () => {
		const { statuses, requested, texts } = await stoppedWhileRunning('always');
		expect(statuses).toEqual(['cancelled', 'cancelled', 'cancelled']);
		expect(requested).toEqual(['c1', 'c2', 'c3']);
		expect(new Set(texts)).toEqual(
			new Set(["The call to tool 'slow' was cancelled before it finished."]),
		);
	});
});
