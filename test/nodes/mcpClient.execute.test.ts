import { readFileSync } from 'node:fs';
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { binaryStoreFor } from '../../nodes/McpClient/server';
import { errorOf, outputOf } from '../support/engine';
import * as mcp from '../support/mcpWorkflow';
import { faultStdio, isProcessAlive } from '../support/servers';

mcp.stopServersAfterAll();

const credentials = mcp.faultCredentials();
/** List Tools offering the model echo alone of the fault server's tools. */
const listEchoOnly = mcp.mcpClientNode('List Tools', {
	operation: 'listTools',
	serverLabel: 'faults',
	toolFilter: 'only',
	includeTools: ['echo'],
});
const listTools = mcp.mcpClientNode('List Tools', { operation: 'listTools' });
const execute = (options: Record<string, unknown> = {}, extra = {}) =>
	mcp.mcpClientNode('Execute', { operation: 'executeToolCalls', options }, extra);

const call = mcp.pendingCall;

/** How many calls the counter tool of the pooled fault server has had, this one included. */
async function callCount(): Promise<number> {
	const { json } = await executeCalls([call('counter', {})]);
	return Number(mcp.toolMessages(json).at(-1)?.content);
}

async function executeCalls(calls: unknown[], options: Record<string, unknown> = {}) {
	const run = await mcp.runMcpChain([listTools, execute(options)], {
		credentials,
		inputItems: [{ json: { toolCalls: calls } }],
	});
	const [item] = outputOf(run, 'Execute');
	mcp.expectConversationItem(item.json);
	return item;
}

describe('MCP Client: Execute Tool Calls', () => {
	it('answers each call in call order with matching ids, keeps structured content, and traces each call', async () => {
		const calls = [
			call('echo', { text: 'first' }),
			call('add', { a: 2, b: 3 }),
			call('math.mul', { a: 4, b: 5 }),
		];
		const { json } = (await executeCalls(calls)) as any;
		expect(json.toolCalls).toEqual([]);
		expect(mcp.toolMessages(json)).toEqual([
			{ role: 'tool', tool_call_id: calls[0].id, name: 'echo', content: 'first' },
			{
				role: 'tool',
				tool_call_id: calls[1].id,
				name: 'add',
				content: '5',
				structuredContent: { sum: 5 },
			},
			{ role: 'tool', tool_call_id: calls[2].id, name: 'math.mul', content: '20' },
		]);
		// Each call: its arguments checked, the request sent, the result received, in call order.
		expect(json.trace.map((entry: any) => [entry.step, entry.callId])).toEqual([
			['tools.list', undefined],
			...calls.flatMap((c) => [
				['arguments.validation', c.id],
				['tools.call.request', c.id],
				['tools.call.result', c.id],
			]),
		]);
		const ofStep = (step: string) => json.trace.filter((entry: any) => entry.step === step);
		expect(
			ofStep('arguments.validation').map((entry: any) => [entry.tool, entry.status, entry.payload]),
		).toEqual([
			['echo', 'valid', { text: 'first' }],
			['add', 'valid', { a: 2, b: 3 }],
			['math.mul', 'valid', { a: 4, b: 5 }],
		]);
		expect(ofStep('tools.call.request').map((entry: any) => [entry.tool, entry.payload])).toEqual([
			['echo', { name: 'echo', arguments: { text: 'first' } }],
			['add', { name: 'add', arguments: { a: 2, b: 3 } }],
			['math.mul', { name: 'math.mul', arguments: { a: 4, b: 5 } }],
		]);
		const results = ofStep('tools.call.result');
		expect(results.map((entry: any) => [entry.tool, entry.status])).toEqual([
			['echo', 'ok'],
			['add', 'ok'],
			['math.mul', 'ok'],
		]);
		expect(results[0].payload).toMatchObject({ content: [{ type: 'text', text: 'first' }] });
		expect(results[1].payload).toMatchObject({ structuredContent: { sum: 5 } });
		expect(results[0]).toMatchObject({
			node: 'Execute',
			round: 0,
			server: 'fault-server',
			callId: calls[0].id,
			durationMs: expect.any(Number),
			bytes: expect.any(Number),
		});
		expect(ofStep('tools.call.request')[0]).toMatchObject({
			node: 'Execute',
			round: 0,
			server: 'fault-server',
			callId: calls[0].id,
		});
	});

	it('turns images, audio and blobs into n8n binary data referenced from the message', async () => {
		const imageCall = call('image', {});
		const item = await executeCalls([imageCall]);
		const [message] = mcp.toolMessages(item.json);
		expect(message.attachments).toEqual([
			{ binaryProperty: `${imageCall.id}_1`, kind: 'image', mimeType: 'image/png' },
			{ binaryProperty: `${imageCall.id}_2`, kind: 'audio', mimeType: 'audio/wav' },
			{
				binaryProperty: `${imageCall.id}_3`,
				kind: 'blob',
				mimeType: 'application/octet-stream',
				uri: 'fault://files/blob.bin',
			},
		]);
		expect(message.content).toBe(
			[
				`[image image/png attached as binary '${imageCall.id}_1']`,
				`[audio audio/wav attached as binary '${imageCall.id}_2']`,
				`[blob application/octet-stream fault://files/blob.bin attached as binary '${imageCall.id}_3']`,
				'[resource link: readme.txt fault://files/readme.txt]',
				'one of every content type',
			].join('\n'),
		);
		const png = Buffer.from(item.binary![`${imageCall.id}_1`].data, 'base64');
		expect(png.subarray(1, 4).toString()).toBe('PNG');
		expect(item.binary![`${imageCall.id}_1`]).toMatchObject({
			mimeType: 'image/png',
			fileName: `${imageCall.id}_1.png`,
		});
		expect([...Buffer.from(item.binary![`${imageCall.id}_3`].data, 'base64')]).toEqual([
			0, 1, 2, 3, 254, 255,
		]);
		// The trace names the binary properties instead of inlining the base64.
		const result = (item.json as any).trace.find(
			(entry: any) => entry.step === 'tools.call.result',
		);
		const traced = JSON.stringify(result.payload);
		expect(traced).not.toContain(item.binary![`${imageCall.id}_1`].data);
		expect(traced).not.toContain(item.binary![`${imageCall.id}_3`].data);
		expect(result.payload.content[0].data).toEqual({
			binaryProperty: `${imageCall.id}_1`,
			bytes: png.length,
		});
	});

	it('turns every kind of failure into an error result the model can act on', async () => {
		const calls = [
			call('fail', {}),
			call('throws', {}),
			call('bad_output', {}),
			call('hang', {}),
			call('no_such_tool', {}),
			call('garbage', {}),
			call('echo', { text: 'still fine' }),
		];
		const { json } = (await executeCalls(calls, { timeoutMs: 500 })) as any;
		const byId = Object.fromEntries(
			mcp.toolMessages(json).map((message: any) => [message.tool_call_id, message]),
		);
		const entriesOf = (step: string) => json.trace.filter((e: any) => e.step === step);
		const status = Object.fromEntries(
			entriesOf('tools.call.result').map((e: any) => [e.callId, e.status]),
		);
		expect(Object.keys(status)).toEqual(calls.map((c) => c.id));
		// Every call but the unknown tool reached the server; all were checked first.
		expect(entriesOf('tools.call.request').map((e: any) => e.callId)).toEqual(
			calls.filter((c) => c.name !== 'no_such_tool').map((c) => c.id),
		);
		const checked = Object.fromEntries(
			entriesOf('arguments.validation').map((e: any) => [e.callId, e.status]),
		);
		expect(calls.map((c) => checked[c.id])).toEqual([
			'valid',
			'valid',
			'valid',
			'valid',
			'unknownTool',
			'valid',
			'valid',
		]);

		expect(byId[calls[0].id]).toMatchObject({ isError: true });
		expect(status[calls[0].id]).toBe('toolError');

		expect(byId[calls[1].id].content).toMatch(
			/^The MCP server refused the call to tool 'throws': .+ \(JSON-RPC error -32602\)\.$/,
		);
		expect(status[calls[1].id]).toBe('serverError');
		// Without a result, the result entry carries the error the model was given.
		const resultOf = (id: string) =>
			entriesOf('tools.call.result').find((e: any) => e.callId === id);
		expect(resultOf(calls[1].id).payload).toEqual({ error: byId[calls[1].id].content });

		expect(byId[calls[2].id]).toMatchObject({
			isError: true,
			structuredContent: { count: 'many' },
		});
		expect(byId[calls[2].id].content).toContain(
			"Tool 'bad_output' returned structured content that does not match its output schema:\n- '/count' must be integer",
		);
		expect(status[calls[2].id]).toBe('invalidOutput');

		expect(byId[calls[3].id].content).toContain("Tool 'hang' did not answer within 500 ms");
		expect(status[calls[3].id]).toBe('timeout');

		expect(byId[calls[4].id]).toMatchObject({
			isError: true,
			content: "Unknown tool 'no_such_tool'. The server was not called.",
		});
		expect(status[calls[4].id]).toBe('unknownTool');
		expect(resultOf(calls[4].id).payload).toEqual({ error: byId[calls[4].id].content });

		expect(byId[calls[5].id]).toMatchObject({ content: 'answer after garbage' });
		expect(byId[calls[5].id].isError).toBeUndefined();
		expect(byId[calls[6].id]).toMatchObject({ content: 'still fine' });
		expect(mcp.toolMessages(json).map((message: any) => message.tool_call_id)).toEqual(
			calls.map((c) => c.id),
		);
		// The totals count the six calls the server got, failed or not; the unknown tool never ran.
		expect(json.usage).toMatchObject({ modelCalls: 0, toolCalls: 6 });
	});

	it('restarts the timeout on progress notifications', async () => {
		// Progress arrives every 100 ms, far inside the 800 ms wait; the silent call outlasts it.
		const slow = call('slow', { ms: 2400, progress: true });
		const silent = call('slow', { ms: 1600 });
		const { json } = (await executeCalls([slow, silent], { timeoutMs: 800 })) as any;
		const [withProgress, without] = mcp.toolMessages(json);
		expect(withProgress).toMatchObject({ content: 'waited 2400 ms' });
		expect(withProgress.isError).toBeUndefined();
		expect(without).toMatchObject({ isError: true });
		expect(without.content).toContain('did not answer within 800 ms');
	});

	it('reports a crash with the server’s stderr, and the next call runs on a restarted server', async () => {
		const { json } = (await executeCalls([
			call('pid', {}),
			call('crash', {}),
			call('pid', {}),
		])) as any;
		const [before, crashed, after] = mcp.toolMessages(json);
		expect(crashed.isError).toBe(true);
		expect(crashed.content).toContain("The MCP server stopped while running tool 'crash'");
		expect(after.isError).toBeUndefined();
		expect(after.content).toMatch(/^\d+$/);
		expect(isProcessAlive(Number(after.content))).toBe(true);
		expect(Number(after.content)).not.toBe(Number(before.content));
		expect(isProcessAlive(Number(before.content))).toBe(false);
	});

	it('leaves calls of other servers’ tools pending and answers only its own', async () => {
		const own = call('echo', { text: 'mine' });
		const foreign = call('search', { q: 'x' });
		const run = await mcp.runMcpChain([listTools, execute()], {
			credentials,
			inputItems: [
				{
					json: {
						tools: [
							{ name: 'search', server: 'web', mcpName: 'search', inputSchema: { type: 'object' } },
						],
						toolCalls: [foreign, own],
					},
				},
			],
		});
		const json = outputOf(run, 'Execute')[0].json as any;
		expect(json.toolCalls).toEqual([foreign]);
		expect(mcp.toolMessages(json)).toEqual([
			{ role: 'tool', tool_call_id: own.id, name: 'echo', content: 'mine' },
		]);
	});

	it('can fail the node on a tool error instead; under continue-on-fail the item goes on with every call answered', async () => {
		const failing = call('fail', {});
		const failed = await mcp.runMcpChain([listTools, execute({ onToolError: 'failNode' })], {
			credentials,
			inputItems: [{ json: { toolCalls: [failing] } }],
		});
		expect(errorOf(failed, 'Execute')?.message).toBe('Tool call failed (toolError)');

		// The calls ran: an item kept as it came would run them again when sent on.
		const counted = call('counter', {});
		const before = await callCount();
		const kept = await mcp.runMcpChain(
			[listTools, execute({ onToolError: 'failNode' }, { onError: 'continueRegularOutput' })],
			{ credentials, inputItems: [{ json: { toolCalls: [counted, failing], topic: 'kept' } }] },
		);
		const [item] = outputOf(kept, 'Execute');
		expect(item.json).toMatchObject({
			topic: 'kept',
			toolCalls: [],
			error: 'Tool call failed (toolError)',
		});
		expect(mcp.toolMessages(item.json).map((message: any) => message.tool_call_id)).toEqual([
			counted.id,
			failing.id,
		]);
		const again = await mcp.runMcpChain([execute()], { credentials, inputItems: [item] });
		expect(mcp.toolMessages(outputOf(again, 'Execute')[0].json)).toHaveLength(2);
		const after = await callCount();
		expect(after - before).toBe(2);
	});

	it('starts no further item once one failed the node', async () => {
		const before = await callCount();
		const items = [
			{ json: { toolCalls: [call('fail', {})] } },
			{ json: { toolCalls: [call('slow', { ms: 300 })] } },
			...[1, 2, 3].map(() => ({ json: { toolCalls: [call('counter', {})] } })),
		];
		const run = await mcp.runMcpChain(
			[listTools, execute({ onToolError: 'failNode', concurrency: 2 })],
			{ credentials, inputItems: items },
		);
		expect(errorOf(run, 'Execute')?.message).toBe('Tool call failed (toolError)');
		await new Promise((resolve) => setTimeout(resolve, 600));
		const after = await callCount();
		expect(after - before).toBe(1);
	});

	it('runs no call of a tool List Tools left out: the model was not offered it, whatever the server has', async () => {
		const run = await mcp.runMcpChain(
			[
				listEchoOnly,
				mcp.mcpClientNode('Execute', { operation: 'executeToolCalls', serverLabel: 'faults' }),
			],
			{
				credentials,
				inputItems: [{ json: { toolCalls: [mcp.pendingCall('add', { a: 1, b: 2 })] } }],
			},
		);
		const json = outputOf(run, 'Execute')[0].json as any;
		expect(mcp.toolMessages(json)).toEqual([
			expect.objectContaining({
				content: "Unknown tool 'add'. The server was not called.",
				isError: true,
			}),
		]);
		expect(json.trace.map((entry: any) => entry.step)).toEqual([
			'tools.list',
			'arguments.validation',
			'tools.call.result',
		]);
		expect(json.trace[1]).toMatchObject({
			status: 'unknownTool',
			reason: 'the tool is not among the tools of the conversation',
		});
	});

	it('passes items without pending calls through unchanged', async () => {
		const run = await mcp.runMcpChain([execute()], {
			credentials,
			inputItems: [{ json: { messages: [{ role: 'user', content: 'hi' }] } }],
		});
		expect(outputOf(run, 'Execute')[0].json).toEqual({
			messages: [{ role: 'user', content: 'hi' }],
			tools: [],
			toolCalls: [],
			trace: [],
		});
	});

	it('gives the server only its configured environment plus PATH', async () => {
		const config = faultStdio();
		const run = await mcp.runMcpChain([listTools, execute()], {
			credentials: {
				mcpStdioServerApi: mcp.stdioCredential({
					...config,
					env: { ...config.env, SERVER_TOKEN: 'tok-123456' },
				}),
			},
			inputItems: [{ json: { toolCalls: [call('pid', {})] } }],
		});
		const pid = Number(mcp.toolMessages(outputOf(run, 'Execute')[0].json)[0].content);
		const environ = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
		expect(environ.map((entry) => entry.split('=')[0]).sort()).toEqual([
			'MCP_TEST_RUN',
			'PATH',
			'SERVER_TOKEN',
		]);
		process.env.N8N_SECRET_FOR_TEST = 'must-not-leak';
		expect(environ.join('\n')).not.toContain('N8N_');
	});
});

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
	const calls = [1, 2, 3].map(() => mcp.pendingCall('slow', { ms: CALL_MS }));
	const run = await mcp.runMcpChain(
		[
			mcp.mcpClientNode('Execute', {
				operation: 'executeToolCalls',
				serverLabel: 'faults',
				options: parallelCalls ? { parallelCalls } : {},
			}),
		],
		{ credentials, inputItems: [{ json: { tools: [slowTool(annotations)], toolCalls: calls } }] },
	);
	const { json } = outputOf(run, 'Execute')[0] as any;
	mcp.expectConversationItem(json);
	expect(mcp.toolMessages(json).map((message: any) => message.tool_call_id)).toEqual(
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

describe('MCP Client: binary data of calls run at once', () => {
	it('gives each call its own binary properties, even where ids differ only after a dot', async () => {
		const calls = ['functions.render:0', 'functions.render:1'].map((id) => ({
			...mcp.pendingCall('image', {}),
			id,
		}));
		const run = await mcp.runMcpChain(
			[
				mcp.mcpClientNode('Execute', {
					operation: 'executeToolCalls',
					serverLabel: 'faults',
					options: { parallelCalls: 'always' },
				}),
			],
			{ credentials, inputItems: [{ json: { toolCalls: calls } }] },
		);
		const [item] = outputOf(run, 'Execute');
		const properties = mcp
			.toolMessages(item.json)
			.flatMap((message: any) => message.attachments.map((a: any) => a.binaryProperty));
		expect(properties.length).toBeGreaterThan(2);
		expect(new Set(properties).size).toBe(properties.length);
		expect(Object.keys(item.binary ?? {}).sort()).toEqual([...properties].sort());
		// Named after their calls: only an extension comes off a file name, not what follows a dot.
		expect(
			properties.filter((property: string) => property.startsWith('functions_render_1_')),
		).toHaveLength(properties.length / 2);
	});

	it('never hands one property to two stores under way at once', async () => {
		const item: INodeExecutionData = { json: {} };
		const context = {
			helpers: {
				prepareBinaryData: async (data: Buffer, fileName: string, mimeType: string) => {
					await new Promise((resolve) => setTimeout(resolve, 20));
					return { data: data.toString('base64'), fileName, mimeType };
				},
			},
		} as unknown as IExecuteFunctions;
		const store = binaryStoreFor(context, item);
		const properties = await Promise.all(
			['one', 'two'].map((text) => store(Buffer.from(text), 'text/plain', 'call_1_1.txt')),
		);
		expect(properties).toEqual(['call_1_1', 'call_1_1_2']);
		expect(Object.keys(item.binary!)).toEqual(['call_1_1', 'call_1_1_2']);
	});
});

const listFaults = mcp.mcpClientNode('List Tools', {
	operation: 'listTools',
	serverLabel: 'faults',
});
const executeAt = (parameters: Record<string, unknown>, extra = {}) =>
	mcp.mcpClientNode(
		'Execute',
		{ operation: 'executeToolCalls', serverLabel: 'faults', ...parameters },
		extra,
	);
const steps = (json: any) => json.trace.map((entry: any) => entry.step);
const requestsOf = (json: any, callId: string) =>
	json.trace.filter((entry: any) => entry.step === 'tools.call.request' && entry.callId === callId);

/** List Tools, then Execute Tool Calls with the approval rule: the run and the Execute node's two outputs. */
async function askFor(calls: unknown[], parameters: Record<string, unknown>) {
	const run = await mcp.runMcpChain([listFaults, executeAt(parameters)], {
		credentials,
		inputItems: [{ json: { toolCalls: calls } }],
	});
	expect(errorOf(run, 'Execute')).toBeUndefined();
	return { done: outputOf(run, 'Execute', 0), held: outputOf(run, 'Execute', 1) };
}

/** An item back at Execute Tool Calls with the decisions made on it. */
async function comeBack(heldJson: any, decisions: unknown[], extra = {}) {
	const run = await mcp.runMcpChain([executeAt({ requireApproval: 'notReadOnly' }, extra)], {
		credentials,
		inputItems: [{ json: { ...heldJson, approval: { ...heldJson.approval, decisions } } }],
	});
	return run;
}

describe('MCP Client: a person approves risky tool calls', () => {
	const echo = mcp.pendingCall('echo', { text: 'hi' });
	const add = mcp.pendingCall('add', { a: 2, b: 3 });

	it('holds every pending call when one needs approval: the item leaves by Needs Approval, asking about it', async () => {
		const { done, held } = await askFor([echo, add], { requireApproval: 'notReadOnly' });
		expect(done).toEqual([]);
		expect(held).toHaveLength(1);
		const json = held[0].json as any;
		mcp.expectConversationItem(json);
		expect(json.toolCalls.map((call: any) => call.id)).toEqual([echo.id, add.id]);
		expect(mcp.toolMessages(json)).toEqual([]);
		expect(json.approval.requested).toEqual([
			{
				callId: add.id,
				tool: 'add',
				arguments: { a: 2, b: 3 },
				reason: 'its server does not annotate the tool read-only',
			},
		]);
		expect(steps(json)).toEqual(['tools.list', 'approval.requested']);
		expect(json.trace.at(-1)).toMatchObject({ server: 'faults', callIds: [add.id] });
	});

	it('answers items with nothing to approve by the first output, as without a rule', async () => {
		const { done, held } = await askFor([mcp.pendingCall('echo', { text: 'safe' })], {
			requireApproval: 'notReadOnly',
		});
		expect(held).toEqual([]);
		expect(mcp.toolMessages(done[0].json).map((message) => message.content)).toEqual(['safe']);
	});

	it('holds listed tools, and tools annotated destructive', async () => {
		const listed = await askFor([echo, add], {
			requireApproval: 'listed',
			approvalTools: ['echo'],
		});
		expect((listed.held[0].json as any).approval.requested.map((r: any) => r.tool)).toEqual([
			'echo',
		]);
		const destructive = await askFor([echo, add], { requireApproval: 'destructive' });
		// echo is annotated read-only; add not at all, and MCP takes a tool to be destructive unless told.
		expect((destructive.held[0].json as any).approval.requested).toEqual([
			expect.objectContaining({
				callId: add.id,
				reason:
					'its server does not say the tool is not destructive (MCP takes a tool to be destructive unless told)',
			}),
		]);
		const annotated = (annotations: { readOnlyHint?: boolean; destructiveHint?: boolean }) =>
			mcp.runMcpChain([executeAt({ requireApproval: 'destructive' })], {
				credentials,
				inputItems: [
					{
						json: {
							tools: [
								{ name: 'add', server: 'faults', inputSchema: { type: 'object' }, annotations },
							],
							toolCalls: [add],
						},
					},
				],
			});
		// destructiveHint false says it only adds; a read-only tool is not destructive whatever else it says.
		for (const annotations of [
			{ destructiveHint: false },
			{ readOnlyHint: true, destructiveHint: true },
		]) {
			const run = await annotated(annotations);
			expect(outputOf(run, 'Execute', 1)).toEqual([]);
			expect(mcp.toolMessages(outputOf(run, 'Execute', 0)[0].json)[0].content).toBe('5');
		}

		const run = await mcp.runMcpChain([executeAt({ requireApproval: 'destructive' })], {
			credentials,
			inputItems: [
				{
					json: {
						tools: [
							{
								name: 'add',
								server: 'faults',
								inputSchema: { type: 'object' },
								annotations: { destructiveHint: true },
							},
						],
						toolCalls: [add],
					},
				},
			],
		});
		const held = outputOf(run, 'Execute', 1)[0].json as any;
		expect(held.approval.requested).toEqual([
			expect.objectContaining({
				callId: add.id,
				annotations: { destructiveHint: true },
				reason: 'its server annotates the tool destructive',
			}),
		]);
	});

	it('holds a call to a tool the item does not carry under "destructive": nothing says it is not', async () => {
		const run = await mcp.runMcpChain([executeAt({ requireApproval: 'destructive' })], {
			credentials,
			inputItems: [{ json: { toolCalls: [add] } }],
		});
		expect(outputOf(run, 'Execute', 0)).toEqual([]);
		const held = outputOf(run, 'Execute', 1)[0].json as any;
		expect(held.approval.requested).toEqual([
			expect.objectContaining({
				callId: add.id,
				reason: 'the tool is not on the item, so nothing says it is not destructive',
			}),
		]);
	});

	it("reads Tools to Approve for each item: an expression holds what the item's own list names", async () => {
		const run = await mcp.runMcpChain(
			[listFaults, executeAt({ requireApproval: 'listed', approvalTools: '={{ $json.hold }}' })],
			{
				credentials,
				inputItems: [
					{ json: { hold: [], toolCalls: [mcp.pendingCall('echo', { text: 'one' })] } },
					{ json: { hold: ['echo'], toolCalls: [mcp.pendingCall('echo', { text: 'two' })] } },
				],
			},
		);
		expect(errorOf(run, 'Execute')).toBeUndefined();
		const holds = (output: number) =>
			outputOf(run, 'Execute', output).map((item) => item.json.hold);
		expect({ done: holds(0), held: holds(1) }).toEqual({ done: [[]], held: [['echo']] });
	});

	it('asks nobody about a call of a tool the model was not offered: it never runs', async () => {
		const run = await mcp.runMcpChain(
			[listEchoOnly, executeAt({ requireApproval: 'notReadOnly' })],
			{ credentials, inputItems: [{ json: { toolCalls: [add] } }] },
		);
		expect(outputOf(run, 'Execute', 1)).toEqual([]);
		expect(mcp.toolMessages(outputOf(run, 'Execute', 0)[0].json)).toEqual([
			expect.objectContaining({ content: "Unknown tool 'add'. The server was not called." }),
		]);
	});

	it('holds a listed tool by its name on the server, also when the item renamed it', async () => {
		const renamed = { ...add, name: 'faults__add' };
		const run = await mcp.runMcpChain(
			[executeAt({ requireApproval: 'listed', approvalTools: ['add'] })],
			{
				credentials,
				inputItems: [
					{
						json: {
							tools: [
								{
									name: 'faults__add',
									mcpName: 'add',
									server: 'faults',
									inputSchema: { type: 'object' },
								},
							],
							toolCalls: [renamed],
						},
					},
				],
			},
		);
		const held = outputOf(run, 'Execute', 1)[0].json as any;
		expect(held.approval.requested).toEqual([
			expect.objectContaining({ callId: add.id, reason: 'the tool is on the list to approve' }),
		]);
	});

	it('works out again what the rule holds when the item comes back: an item saying it asked nothing runs nothing held', async () => {
		const { held } = await askFor([echo, add], { requireApproval: 'notReadOnly' });
		for (const approval of [{ requested: [] }, { requested: [], decisions: [] }]) {
			const run = await mcp.runMcpChain([executeAt({ requireApproval: 'notReadOnly' })], {
				credentials,
				inputItems: [{ json: { ...(held[0].json as any), approval } }],
			});
			expect(errorOf(run, 'Execute')?.message).toBe(
				`No decision for call ${add.id} (add): each call asked about needs approval.decisions[] with its callId and approved`,
			);
		}
	});

	it('runs none of the calls that share an id, and tells the model why; none is asked about', async () => {
		const twin = { ...add, id: echo.id };
		const { done, held } = await askFor([echo, twin], { requireApproval: 'notReadOnly' });
		expect(held).toEqual([]);
		const json = done[0].json as any;
		const messages = mcp.toolMessages(json);
		expect(messages).toHaveLength(2);
		for (const message of messages) {
			expect(message).toMatchObject({ tool_call_id: echo.id, isError: true });
			expect(message.content).toContain(
				`The call id '${echo.id}' is given to more than one call of this turn`,
			);
		}
		expect(requestsOf(json, echo.id)).toEqual([]);
	});

	it('answers calls sharing an id at the first executor, even when another server has the tool', async () => {
		const echoOn = (server: string, name: string) => ({
			name,
			server,
			mcpName: 'echo',
			inputSchema: { type: 'object', properties: { text: { type: 'string' } } },
			annotations: { readOnlyHint: true },
		});
		const first = { ...echo, id: 'twin' };
		const second = { ...mcp.pendingCall('other__echo', { text: 'B' }), id: 'twin' };
		const executeOn = (name: string, serverLabel: string) =>
			mcp.mcpClientNode(name, {
				operation: 'executeToolCalls',
				serverLabel,
				requireApproval: 'listed',
				approvalTools: ['other__echo'],
			});
		const run = await mcp.runMcpChain(
			[executeOn('First', 'faults'), executeOn('Second', 'other')],
			{
				credentials,
				inputItems: [
					{
						json: {
							tools: [echoOn('faults', 'echo'), echoOn('other', 'other__echo')],
							toolCalls: [first, second],
						},
					},
				],
			},
		);
		const json = outputOf(run, 'Second')[0].json as any;
		// The second executor, whose tool one twin calls, finds nothing left to run or to ask about.
		expect(outputOf(run, 'First', 1)).toEqual([]);
		expect(outputOf(run, 'Second', 1)).toEqual([]);
		expect(json.toolCalls).toEqual([]);
		expect(mcp.toolMessages(json).map((message) => [message.name, message.isError])).toEqual([
			['echo', true],
			['other__echo', true],
		]);
		expect(requestsOf(json, 'twin')).toEqual([]);
	});

	it('drops decisions left on an item with no pending call, so a later call with the same id is not taken as approved', async () => {
		const run = await mcp.runMcpChain([executeAt({ requireApproval: 'notReadOnly' })], {
			credentials,
			inputItems: [
				{
					json: {
						messages: [{ role: 'user', content: 'hi' }],
						toolCalls: [],
						approval: { requested: [], decisions: [{ callId: add.id, approved: true }] },
					},
				},
			],
		});
		const json = outputOf(run, 'Execute')[0].json as any;
		expect(json).not.toHaveProperty('approval');
		expect(json.messages).toEqual([{ role: 'user', content: 'hi' }]);
	});

	it('holds the calls an expression over the item chooses', async () => {
		const chosen = await askFor([echo, add], {
			requireApproval: 'expression',
			// n8n's expressions cannot read a key named `arguments`: rawArguments holds the same JSON.
			approvalCalls:
				'={{ $json.toolCalls.filter(call => JSON.parse(call.rawArguments).a > 1).map(call => call.id) }}',
		});
		expect((chosen.held[0].json as any).approval.requested).toEqual([
			expect.objectContaining({
				callId: add.id,
				reason: "the node's approval expression chose it",
			}),
		]);
		const all = await askFor([echo, add], {
			requireApproval: 'expression',
			approvalCalls: '={{ true }}',
		});
		expect((all.held[0].json as any).approval.requested.map((r: any) => r.callId)).toEqual([
			echo.id,
			add.id,
		]);
		const none = await askFor([echo, add], {
			requireApproval: 'expression',
			approvalCalls: '={{ [] }}',
		});
		expect(none.held).toEqual([]);
		expect(mcp.toolMessages(none.done[0].json)).toHaveLength(2);
	});

	it('holds a call whose id came as a number (a sheet) when the expression chooses every call', async () => {
		const { done, held } = await askFor(
			[{ id: 7, name: 'add', arguments: { a: 2, b: 3 }, rawArguments: '{"a":2,"b":3}' }],
			{ requireApproval: 'expression', approvalCalls: '={{ true }}' },
		);
		expect(done).toEqual([]);
		expect((held[0].json as any).approval.requested).toEqual([
			expect.objectContaining({ callId: '7', tool: 'add' }),
		]);
	});

	it('reads the chosen calls however the value comes: one id, ids separated by commas, a fixed true or list', async () => {
		const heldIds = async (approvalCalls: string) => {
			const { held } = await askFor([echo, add], { requireApproval: 'expression', approvalCalls });
			return (held[0].json as any).approval.requested.map((request: any) => request.callId);
		};
		expect(await heldIds(`={{ "${add.id}" }}`)).toEqual([add.id]);
		expect(await heldIds('={{ $json.toolCalls.map(call => call.id).join(", ") }}')).toEqual([
			echo.id,
			add.id,
		]);
		expect(await heldIds('true')).toEqual([echo.id, add.id]);
		expect(await heldIds(`["${add.id}"]`)).toEqual([add.id]);
		expect(await heldIds(`={{ JSON.stringify(["${echo.id}"]) }}`)).toEqual([echo.id]);
		const none = await askFor([echo, add], {
			requireApproval: 'expression',
			approvalCalls: 'false',
		});
		expect(none.held).toEqual([]);
	});

	it('fails the item, running nothing, when the chosen calls are no list, true or false', async () => {
		for (const approvalCalls of [
			'={{ null }}',
			'={{ 2 }}',
			'={{ { ids: [] } }}',
			// The calls themselves, not their ids: the slip of leaving out .map(call => call.id).
			'={{ $json.toolCalls.filter(call => call.name === "add") }}',
		]) {
			const run = await mcp.runMcpChain(
				[listFaults, executeAt({ requireApproval: 'expression', approvalCalls })],
				{ credentials, inputItems: [{ json: { toolCalls: [add] } }] },
			);
			const error = errorOf(run, 'Execute');
			expect(error?.message).toMatch(/^Calls to Approve gave .+, which names no calls$/);
			expect(error?.description).toContain('no call of the item ran');
			expect(outputOf(run, 'Execute', 0)).toEqual([]);
		}
	});

	it('fails the item, running nothing, when the chosen ids name no pending call of the item', async () => {
		const run = await mcp.runMcpChain(
			[listFaults, executeAt({ requireApproval: 'expression', approvalCalls: 'call_typo' })],
			{ credentials, inputItems: [{ json: { toolCalls: [add] } }] },
		);
		expect(errorOf(run, 'Execute')?.message).toBe(
			`Calls to Approve names "call_typo", which no pending call of the item has (its calls: ${add.id})`,
		);
		expect(outputOf(run, 'Execute', 0)).toEqual([]);
	});

	it('runs approved calls with the arguments a person edited, checked again, in call order; the trace tells who decided', async () => {
		const { held } = await askFor([echo, add], { requireApproval: 'notReadOnly' });
		const run = await comeBack(held[0].json, [
			{ callId: add.id, approved: true, by: 'ada@example.com', arguments: { a: 10, b: 5 } },
		]);
		expect(errorOf(run, 'Execute')).toBeUndefined();
		const json = outputOf(run, 'Execute', 0)[0].json as any;
		mcp.expectConversationItem(json);
		expect(json.approval).toBeUndefined();
		expect(json.toolCalls).toEqual([]);
		expect(
			mcp.toolMessages(json).map((message) => [message.tool_call_id, message.content]),
		).toEqual([
			[echo.id, 'hi'],
			[add.id, '15'],
		]);
		const decision = json.trace.find((entry: any) => entry.step === 'approval.decision');
		expect(decision).toMatchObject({
			callId: add.id,
			approved: true,
			by: 'ada@example.com',
			argumentsEdited: true,
			payload: { arguments: { a: 10, b: 5 } },
		});
		expect(requestsOf(json, add.id)[0].payload).toEqual({
			name: 'add',
			arguments: { a: 10, b: 5 },
		});
	});

	it('checks edited arguments against the schema again: invalid ones never reach the server', async () => {
		const { held } = await askFor([add], { requireApproval: 'notReadOnly' });
		const run = await comeBack(held[0].json, [
			{ callId: add.id, approved: true, arguments: { a: 'ten' } },
		]);
		const json = outputOf(run, 'Execute', 0)[0].json as any;
		const [message] = mcp.toolMessages(json);
		expect(message.isError).toBe(true);
		expect(requestsOf(json, add.id)).toEqual([]);
		expect(json.trace.find((entry: any) => entry.step === 'arguments.validation').status).toBe(
			'invalid',
		);
	});

	it('answers a declined call with a message that tells the model a person declined and why; the server is not called', async () => {
		const { held } = await askFor([echo, add], { requireApproval: 'notReadOnly' });
		const run = await comeBack(held[0].json, [
			{ callId: add.id, approved: false, by: 'bob', note: 'Not on a Friday.' },
		]);
		const json = outputOf(run, 'Execute', 0)[0].json as any;
		const [echoed, declined] = mcp.toolMessages(json);
		expect(echoed.content).toBe('hi');
		expect(declined).toMatchObject({ tool_call_id: add.id, name: 'add', isError: true });
		expect(declined.content).toMatch(/^A person \(bob\) declined this call, so it did not run\./);
		expect(declined.content).toContain('Their reason: Not on a Friday.');
		expect(requestsOf(json, add.id)).toEqual([]);
		expect(
			mcp
				.conversationOf(json)
				.trace.find((entry) => entry.step === 'tools.call.result' && entry.callId === add.id),
		).toMatchObject({ status: 'declined' });
		// Only the approved call ran: the declined one is no tool call of the totals.
		expect(json.usage.toolCalls).toBe(1);
	});

	it('refuses a decision for a call the item did not ask about, and a held call with no decision, naming the call; the item is kept', async () => {
		const { held } = await askFor([echo, add], { requireApproval: 'notReadOnly' });
		const unknown = await comeBack(held[0].json, [
			{ callId: add.id, approved: true },
			{ callId: 'call_nobody', approved: true },
		]);
		expect(errorOf(unknown, 'Execute')?.message).toMatch(
			/decision names call call_nobody, which the item did not ask approval for \(it asked for call_\d+\)/,
		);
		const missing = await comeBack(held[0].json, []);
		expect(errorOf(missing, 'Execute')).toMatchObject({
			message: `No decision for call ${add.id} (add): each call asked about needs approval.decisions[] with its callId and approved`,
			description:
				'The item came back to Execute Tool Calls with approval decisions that do not match the calls it held',
			context: { itemIndex: 0 },
		});
		const kept = await comeBack(held[0].json, [], { onError: 'continueRegularOutput' });
		const [item] = outputOf(kept, 'Execute', 0);
		expect((item.json as any).toolCalls.map((call: any) => call.id)).toEqual([echo.id, add.id]);
		expect((item.json as any).error).toMatch(/No decision for call/);
	});

	it('refuses two decisions for one call, and decisions that are no list: nothing runs', async () => {
		const { held } = await askFor([echo, add], { requireApproval: 'notReadOnly' });
		const twice = await comeBack(held[0].json, [
			{ callId: add.id, approved: false, by: 'boss', note: 'no' },
			{ callId: add.id, approved: true, by: 'intern' },
		]);
		expect(errorOf(twice, 'Execute')?.message).toBe(
			`Two decisions name call ${add.id}: give exactly one decision for each call`,
		);
		expect(outputOf(twice, 'Execute', 0)).toEqual([]);
		const run = await mcp.runMcpChain([executeAt({ requireApproval: 'notReadOnly' })], {
			credentials,
			inputItems: [
				{
					json: {
						...(held[0].json as any),
						approval: { decisions: { callId: add.id, approved: true } },
					},
				},
			],
		});
		expect(errorOf(run, 'Execute')?.message).toBe(
			`The item's 'approval.decisions' must be a list of decisions, but it is an object: give [{ "callId": …, "approved": true or false }]`,
		);
	});
});
