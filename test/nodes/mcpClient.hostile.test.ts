/**
 * MCP Client in n8n's engine against hostile servers and inputs (real processes): every item comes
 * out, one bad call ends as that call's error message, no healthy server is killed.
 */
import type { IDataObject } from 'n8n-workflow';
import { errorOf, outputOf } from '../support/engine';
import * as mcp from '../support/mcpWorkflow';
import { faultStdio, isProcessAlive } from '../support/servers';

mcp.stopServersAfterAll();

const hostile = {
	mcpStdioServerApi: mcp.stdioCredential(faultStdio({ name: 'hostile', hostile: true })),
};
const listTools = mcp.mcpClientNode('List Tools', { operation: 'listTools' });
const execute = (options: IDataObject = {}) =>
	mcp.mcpClientNode('Execute', { operation: 'executeToolCalls', options });

/** Runs the calls of each item through List Tools → Execute Tool Calls; the items that come out. */
async function executeItems(
	itemsCalls: unknown[][],
	options: IDataObject = {},
	extra: { credentials?: typeof hostile; workflowId?: string } = {},
) {
	const run = await mcp.runMcpChain([listTools, execute(options)], {
		credentials: extra.credentials ?? hostile,
		inputItems: itemsCalls.map((toolCalls) => ({ json: { toolCalls } })),
		workflowId: extra.workflowId,
	});
	expect(errorOf(run, 'Execute')).toBeUndefined();
	return outputOf(run, 'Execute');
}

const statusesOf = (json: IDataObject) => mcp.callTraces(json).map((entry) => entry.status);
const pidIn = (json: IDataObject, index: number) => Number(mcp.toolMessages(json)[index].content);

describe('MCP Client: hostile servers and inputs', () => {
	it('takes a -32000 error for the tool’s failure: the same server answers the next call', async () => {
		const [item] = await executeItems([
			[mcp.pendingCall('pid'), mcp.pendingCall('server_error'), mcp.pendingCall('pid')],
		]);
		expect(statusesOf(item.json)).toEqual(['ok', 'serverError', 'ok']);
		expect(mcp.toolMessages(item.json)[1].content).toBe(
			"The MCP server refused the call to tool 'server_error': Internal server error (JSON-RPC error -32000).",
		);
		expect(pidIn(item.json, 2)).toBe(pidIn(item.json, 0));
	});

	it('stops a call that reports progress forever at Max Total Time; the item’s next call runs', async () => {
		const started = Date.now();
		const [item] = await executeItems(
			[
				[
					mcp.pendingCall('progress_forever', { interval_ms: 20 }),
					mcp.pendingCall('echo', { text: 'next' }),
				],
			],
			{ timeoutMs: 400, maxTotalMs: 1_500 },
		);
		expect(Date.now() - started).toBeLessThan(20_000);
		expect(statusesOf(item.json)).toEqual(['timeout', 'ok']);
		expect(mcp.toolMessages(item.json)[0].content).toContain(
			"Tool 'progress_forever' was still running after 1500 ms",
		);
	});

	it('ends an oversized result as resultTooLarge, keeps the server, and goes on', async () => {
		const [item] = await executeItems(
			[[mcp.pendingCall('pid'), mcp.pendingCall('huge', { mb: 50 }), mcp.pendingCall('pid')]],
			{ maxResultMb: 1 },
		);
		expect(statusesOf(item.json)).toEqual(['ok', 'resultTooLarge', 'ok']);
		expect(mcp.toolMessages(item.json)[1]).toMatchObject({
			isError: true,
			content: expect.stringContaining('The result is 50.0 MB, more than the 1.0 MB allowed'),
		});
		expect(pidIn(item.json, 2)).toBe(pidIn(item.json, 0));
	});

	it('refuses a request of the server’s larger than it reads at once, says why in the message and the trace, and goes on', async () => {
		const started = Date.now();
		const [item] = await executeItems(
			[[mcp.pendingCall('ask_huge', { mb: 11 }), mcp.pendingCall('echo', { text: 'next' })]],
			{ timeoutMs: 30_000 },
		);
		expect(Date.now() - started).toBeLessThan(20_000);
		const refusal =
			'The elicitation/create request is 11.0 MB, more than the 10.0 MB this client reads (Max Result Size); it was refused unread';
		expect(mcp.toolMessages(item.json).map((message) => message.content)).toEqual([
			`The elicitation/create request failed: MCP error -32600: ${refusal}\n[The tool sent this client a request too large to read; it was refused: ${refusal}.]`,
			'next',
		]);
		const asked = mcp
			.conversationOf(item.json)
			.trace.filter((entry) => entry.step === 'server.request');
		expect(asked).toEqual([
			expect.objectContaining({
				tool: 'ask_huge',
				method: 'elicitation/create',
				action: 'refused',
				error: refusal,
				requestBytes: expect.any(Number),
			}),
		]);
		expect(asked[0].requestBytes).toBeGreaterThan(11 * 1024 * 1024);
	});

	it('refuses data nested too deep, and numbers JSON cannot carry, call by call', async () => {
		const deepArguments = '{"a":'.repeat(2_000) + '1' + '}'.repeat(2_000);
		const calls = [
			mcp.pendingCall('received', deepArguments),
			mcp.pendingCall('deep', { depth: 3_000 }),
			mcp.pendingCall('received', '{"a":1e400}'),
			mcp.pendingCall('received', '{"id":12345678901234567890}'),
			mcp.pendingCall('received', { fine: 1 }),
		];
		const [item] = await executeItems([calls]);
		expect(statusesOf(item.json)).toEqual([
			'invalidArguments',
			'resultTooLarge',
			'invalidArguments',
			'invalidArguments',
			'ok',
		]);
		const messages = mcp.toolMessages(item.json).map((message) => message.content);
		expect(messages[0]).toContain('the arguments nest deeper than 1000 levels');
		expect(messages[1]).toContain('The result nests deeper than 1000 levels');
		expect(messages[2]).toContain("'a' is 1e400");
		expect(messages[3]).toContain("'id' is 12345678901234567890");
		// The server saw only the call that passed, with exactly the arguments checked.
		const requests = (item.json.trace as IDataObject[]).filter(
			(entry) => entry.step === 'tools.call.request',
		);
		expect(requests.map((entry) => entry.callId)).toEqual([calls[1].id, calls[4].id]);
		expect(messages[4]).toBe('{"fine":1}');
	});

	it('drops a frozen server after the ping that follows a timeout; the next execution starts it afresh', async () => {
		const [item] = await executeItems([[mcp.pendingCall('pid'), mcp.pendingCall('freeze')]], {
			timeoutMs: 500,
		});
		expect(statusesOf(item.json)).toEqual(['ok', 'timeout']);
		expect(mcp.toolMessages(item.json)[1].content).toContain(
			'The server did not answer a ping either, so it was stopped',
		);
		const frozen = pidIn(item.json, 0);
		for (let waited = 0; isProcessAlive(frozen) && waited < 10_000; waited += 50)
			await new Promise((resolve) => setTimeout(resolve, 50));
		expect(isProcessAlive(frozen)).toBe(false);
		const [next] = await executeItems([[mcp.pendingCall('pid')]]);
		expect(statusesOf(next.json)).toEqual(['ok']);
		expect(pidIn(next.json, 0)).not.toBe(frozen);
	});

	it('lists the valid tools of a list with invalid ones, names those, and never calls them', async () => {
		const credentials = {
			mcpStdioServerApi: mcp.stdioCredential(faultStdio({ name: 'invalid', invalidTools: true })),
		};
		const [item] = await executeItems(
			[[mcp.pendingCall('string_schema'), mcp.pendingCall('echo', { text: 'ok' })]],
			{},
			{
				credentials,
			},
		);
		const listed = (item.json.trace as IDataObject[])[0];
		expect(listed).toMatchObject({
			step: 'tools.list',
			toolCount: 16,
			invalidTools: [
				{ name: 'string_schema', reason: expect.any(String) },
				{ name: 'no_schema', reason: expect.any(String) },
				{ name: '(tool 4 has no name)', reason: expect.any(String) },
			],
		});
		expect(item.json.warnings).toEqual([
			expect.stringMatching(
				/^Server 'invalid' listed 3 tool\(s\) whose definition breaks the MCP schema; they were left out and cannot be called: string_schema \(/,
			),
		]);
		expect(statusesOf(item.json)).toEqual(['unknownTool', 'ok']);
	});

	it('gives each workflow its own server by default, and one shared server when asked', async () => {
		const pidOfWorkflow = async (workflowId: string, options: IDataObject = {}) => {
			const [item] = await executeItems([[mcp.pendingCall('pid')]], options, { workflowId });
			return pidIn(item.json, 0);
		};
		const a = await pidOfWorkflow('workflow-a');
		const b = await pidOfWorkflow('workflow-b');
		expect(b).not.toBe(a);
		expect(await pidOfWorkflow('workflow-a')).toBe(a);
		const sharedA = await pidOfWorkflow('workflow-a', { shareServer: true });
		expect(await pidOfWorkflow('workflow-b', { shareServer: true })).toBe(sharedA);
		expect([a, b]).not.toContain(sharedA);
	});

	it('waits for a server to start only as long as the node’s Timeout', async () => {
		const credentials = {
			mcpStdioServerApi: mcp.stdioCredential(faultStdio({ name: 'mute', mute: true })),
		};
		const started = Date.now();
		const run = await mcp.runMcpChain(
			[{ ...execute({ timeoutMs: 500 }), onError: 'continueRegularOutput' }],
			{
				credentials,
				inputItems: [{ json: { toolCalls: [mcp.pendingCall('echo', { text: 'x' })] } }],
			},
		);
		expect(Date.now() - started).toBeLessThan(10_000);
		expect(outputOf(run, 'Execute')[0].json.error).toMatch(/^Could not connect to the MCP server/);
	});

	it('answers every item of an execution when some of their calls fail', async () => {
		const items = Array.from({ length: 12 }, (_, index) =>
			index % 3 === 0
				? [mcp.pendingCall('server_error'), mcp.pendingCall('echo', { text: `item ${index}` })]
				: index % 3 === 1
					? [
							mcp.pendingCall('received', '{"a":1e999}'),
							mcp.pendingCall('echo', { text: `item ${index}` }),
						]
					: [
							mcp.pendingCall('deep', { depth: 2_000 }),
							mcp.pendingCall('echo', { text: `item ${index}` }),
						],
		);
		const output = await executeItems(items, { concurrency: 4 });
		expect(output).toHaveLength(12);
		output.forEach((item, index) => {
			expect(mcp.toolMessages(item.json)[1].content).toBe(`item ${index}`);
			expect(item.pairedItem).toEqual({ item: index });
		});
	});
});
