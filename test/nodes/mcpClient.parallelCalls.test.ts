import { sharedPool } from '../../lib/mcp';
import { outputOf } from '../support/engine';
import {
	expectConversationItem,
	mcpClientNode,
	pendingCall,
	runMcpChain,
	stdioCredential,
	toolMessages,
} from '../support/mcpWorkflow';
import { faultStdio, stopAllServers } from '../support/servers';

afterAll(async () => {
	await sharedPool.closeAll();
	await stopAllServers();
});

const credentials = { mcpStdioServerApi: stdioCredential(faultStdio()) };
const CALL_MS = 300;

/** The fault server's `slow` tool as List Tools puts it on the item, annotated as its server would. */
function slowTool(annotations?: Record<string, boolean>) {
	return {
		name: 'slow',
		server: 'faults',
		mcpName: 'slow',
		inputSchema: {
			type: 'object',
			properties: { ms: { type: 'integer' } },
			required: ['ms'],
		},
		...(annotations && { annotations }),
	};
}

/** Runs three `slow` calls of one item; each call's start and end as the trace tells them, in call order. */
async function threeCalls(
	parallelCalls: string | undefined,
	annotations?: Record<string, boolean>,
) {
	const calls = [1, 2, 3].map(() => pendingCall('slow', { ms: CALL_MS }));
	const run = await runMcpChain(
		[
			mcpClientNode('Execute', {
				operation: 'executeToolCalls',
				serverLabel: 'faults',
				options: parallelCalls ? { parallelCalls } : {},
			}),
		],
		{ credentials, inputItems: [{ json: { tools: [slowTool(annotations)], toolCalls: calls } }] },
	);
	const { json } = outputOf(run, 'Execute')[0] as any;
	expectConversationItem(json);
	expect(toolMessages(json).map((message: any) => message.tool_call_id)).toEqual(
		calls.map((call) => call.id),
	);
	const spans = json.trace
		.filter((entry: any) => entry.step === 'tools.call.result')
		.map((entry: any) => {
			const start = Date.parse(entry.at);
			return { callId: entry.callId, start, end: start + entry.durationMs };
		});
	expect(spans.map((span: any) => span.callId)).toEqual(calls.map((call) => call.id));
	return spans as Array<{ start: number; end: number }>;
}

/** Whether each call started before the one before it ended (with room for timer rounding). */
const overlapping = (spans: Array<{ start: number; end: number }>) =>
	spans.slice(1).every((span, index) => span.start < spans[index].end - CALL_MS / 3);
const oneAfterAnother = (spans: Array<{ start: number; end: number }>) =>
	spans.slice(1).every((span, index) => span.start >= spans[index].end - 5);

describe('MCP Client: the calls of one item', () => {
	it('run at once by default when every tool called is annotated read-only, answered in call order', async () => {
		expect(overlapping(await threeCalls(undefined, { readOnlyHint: true }))).toBe(true);
	});

	it('run one after another by default when a tool is not annotated read-only', async () => {
		expect(oneAfterAnother(await threeCalls(undefined))).toBe(true);
		expect(oneAfterAnother(await threeCalls(undefined, { readOnlyHint: false }))).toBe(true);
	});

	it('run at once with "Always at Once", one after another with "One After Another"', async () => {
		expect(overlapping(await threeCalls('always'))).toBe(true);
		expect(oneAfterAnother(await threeCalls('never', { readOnlyHint: true }))).toBe(true);
	});
});
