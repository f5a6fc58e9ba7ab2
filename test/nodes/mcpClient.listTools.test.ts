import { stringify } from 'flatted';
import { errorOf, outputOf } from '../support/engine';
import * as mcp from '../support/mcpWorkflow';
import {
	createTempFolder,
	everythingStdio,
	filesystemStdio,
	removeTempFolder,
	startHttpServer,
} from '../support/servers';

mcp.stopServersAfterAll();

const fault = mcp.faultCredentials();
const listTools = (parameters: Record<string, unknown> = {}) =>
	mcp.mcpClientNode('List Tools', { operation: 'listTools', ...parameters });
const executeCalls = mcp.mcpClientNode('Execute', { operation: 'executeToolCalls' });

describe('MCP Client: List Tools', () => {
	it('adds every page of tools to each item with its server label, and traces the listing', async () => {
		const run = await mcp.runMcpChain([listTools()], {
			credentials: fault,
			inputItems: [
				{ json: { ticket: 1 } },
				{ json: { ticket: 2, messages: [{ role: 'user', content: 'hi' }] } },
			],
		});
		const items = outputOf(run, 'List Tools');
		expect(items).toHaveLength(2);
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }]);
		for (const item of items) mcp.expectConversationItem(item.json);

		const [first, second] = items.map((item) => item.json as any);
		expect(first.ticket).toBe(1);
		expect(second.messages).toEqual([{ role: 'user', content: 'hi' }]);
		// The fault server serves 16 tools in pages of 3: all of them arrive.
		expect(first.tools).toHaveLength(16);
		expect(first.tools.map((tool: any) => tool.name)).toEqual(
			expect.arrayContaining(['echo', 'add', 'math.mul', 'submit_order', 'headers']),
		);
		const add = first.tools.find((tool: any) => tool.name === 'add');
		expect(add).toMatchObject({
			server: 'fault-server',
			mcpName: 'add',
			outputSchema: { type: 'object' },
		});
		expect(add.inputSchema.required).toEqual(['a', 'b']);

		expect(first.trace).toEqual([
			{
				step: 'tools.list',
				node: 'List Tools',
				round: 0,
				at: expect.any(String),
				durationMs: expect.any(Number),
				server: {
					label: 'fault-server',
					name: 'fault-server',
					version: '1.0.0',
					protocolVersion: '2025-11-25',
					transport: 'stdio',
				},
				toolCount: 16,
				listedCount: 16,
				listHash: expect.stringMatching(/^sha256:[0-9a-f]{16}$/),
				bytes: expect.any(Number),
				payload: expect.any(Array),
			},
		]);
		expect(second.trace[0].listHash).toBe(first.trace[0].listHash);
		// The payload is the list as the server gave it, measured as UTF-8 JSON.
		const [listing] = first.trace;
		expect(listing.payload.map((tool: any) => tool.name)).toEqual(
			first.tools.map((tool: any) => tool.mcpName),
		);
		expect(listing.payload.find((tool: any) => tool.name === 'add')).toMatchObject({
			inputSchema: add.inputSchema,
			outputSchema: add.outputSchema,
		});
		expect(listing.bytes).toBe(Buffer.byteLength(JSON.stringify(listing.payload)));
		expect(new Date(listing.at).toISOString()).toBe(listing.at);
	});

	it('gives the items of a batch one tool list and one tools.list entry, which n8n then stores once', async () => {
		const earlier = await mcp.runMcpChain([listTools()], { credentials: fault });
		const listedBefore = outputOf(earlier, 'List Tools')[0].json as any;
		const batch = (count: number) =>
			mcp.runMcpChain([listTools(), executeCalls], {
				credentials: fault,
				inputItems: [
					...Array.from({ length: count }, (_, index) => ({
						json: { toolCalls: [mcp.pendingCall('echo', { text: `row ${index}` })] },
					})),
					// One that listed these tools before, and one that holds another server's tools.
					{ json: { trace: listedBefore.trace } },
					{ json: { tools: [{ name: 'search', inputSchema: { type: 'object' }, server: 'web' }] } },
				],
			});
		const run = await batch(100);
		const [first, second] = outputOf(run, 'List Tools').map((item) => item.json as any);
		const [again, other] = outputOf(run, 'List Tools')
			.slice(-2)
			.map((item) => item.json as any);
		expect(second.tools).toBe(first.tools);
		expect(second.trace[0]).toBe(first.trace[0]);
		expect(first.trace[0].payload).toHaveLength(16);
		// A later listing of the same tools refers to the earlier one; a list of two servers is its own.
		expect(again.trace[1]).toMatchObject({ step: 'tools.list', payloadSameAsRound: 0 });
		expect(again.trace[1].payload).toBeUndefined();
		expect(other.tools).toHaveLength(17);
		expect(other.tools[0]).toMatchObject({ name: 'search', server: 'web' });
		// Each answered item adds its own calls' entries and messages, not the 16 tools again.
		const answered = outputOf(run, 'Execute');
		expect(answered).toHaveLength(102);
		expect(mcp.toolMessages(answered[99].json)[0].content).toBe('row 99');
		const stored = async (count: number) =>
			Buffer.byteLength(stringify((count === 100 ? run : await batch(count)).raw.data));
		const perItem = ((await stored(100)) - (await stored(10))) / 90;
		expect(perItem).toBeLessThan(3000);
		expect(perItem).toBeLessThan(Buffer.byteLength(JSON.stringify(first.tools)) / 2);
	});

	it('includes only the chosen tools, or all but the excluded ones, and the hash follows the list', async () => {
		const only = await mcp.runMcpChain(
			[listTools({ toolFilter: 'only', includeTools: ['echo', 'add'] })],
			{ credentials: fault },
		);
		const except = await mcp.runMcpChain(
			[listTools({ toolFilter: 'except', excludeTools: ['crash', 'hang'] })],
			{ credentials: fault },
		);
		const onlyJson = outputOf(only, 'List Tools')[0].json as any;
		const exceptJson = outputOf(except, 'List Tools')[0].json as any;
		expect(onlyJson.tools.map((tool: any) => tool.name)).toEqual(['echo', 'add']);
		expect(onlyJson.trace[0]).toMatchObject({ step: 'tools.list', toolCount: 2, listedCount: 16 });
		expect(onlyJson.trace[0].payload.map((tool: any) => tool.name)).toEqual(['echo', 'add']);
		expect(exceptJson.trace[0].payload).toHaveLength(14);
		expect(exceptJson.tools.map((tool: any) => tool.name)).not.toEqual(
			expect.arrayContaining(['crash']),
		);
		expect(exceptJson.tools).toHaveLength(14);
		expect(onlyJson.trace[0].listHash).not.toBe(exceptJson.trace[0].listHash);
	});

	it('merges two servers whose tool names collide, reversibly, and listing again does not duplicate', async () => {
		// The harness gives one credential per type, so the second server runs over HTTP.
		const http = await startHttpServer('fault', { name: 'second-server' });
		const run = await mcp.runMcpChain(
			[
				listTools({ toolFilter: 'only', includeTools: ['echo', 'add'] }),
				mcp.mcpClientNode('List Second', {
					operation: 'listTools',
					connectionType: 'http',
					toolFilter: 'only',
					includeTools: ['echo', 'pid'],
				}),
				{
					...listTools({ toolFilter: 'only', includeTools: ['echo', 'add'] }),
					name: 'List Again',
					id: 'again',
				},
			],
			{ credentials: { ...fault, mcpHttpServerApi: mcp.httpCredential(http.url) } },
		);
		const json = outputOf(run, 'List Again')[0].json as any;
		mcp.expectConversationItem(json);
		expect(json.tools.map(({ name, server, mcpName }: any) => ({ name, server, mcpName }))).toEqual(
			[
				{ name: 'second-server__echo', server: 'second-server', mcpName: 'echo' },
				{ name: 'pid', server: 'second-server', mcpName: 'pid' },
				{ name: 'echo', server: 'fault-server', mcpName: 'echo' },
				{ name: 'add', server: 'fault-server', mcpName: 'add' },
			],
		);
		expect(json.trace.map((entry: any) => entry.server.transport)).toEqual([
			'stdio',
			'streamableHttp',
			'stdio',
		]);
	});

	it('uses the Server Label when one is set', async () => {
		const run = await mcp.runMcpChain(
			[listTools({ serverLabel: 'tools', toolFilter: 'only', includeTools: ['echo'] })],
			{ credentials: fault },
		);
		const json = outputOf(run, 'List Tools')[0].json as any;
		expect(json.tools[0].server).toBe('tools');
		expect(json.trace[0].server).toMatchObject({ label: 'tools', name: 'fault-server' });
	});

	it('lists the real reference servers: server-everything and server-filesystem over stdio', async () => {
		const everything = await mcp.runMcpChain([listTools()], {
			credentials: { mcpStdioServerApi: mcp.stdioCredential(everythingStdio()) },
		});
		const everythingJson = outputOf(everything, 'List Tools')[0].json as any;
		mcp.expectConversationItem(everythingJson);
		expect(everythingJson.tools.map((tool: any) => tool.name)).toEqual(
			expect.arrayContaining(['echo', 'get-sum']),
		);
		expect(everythingJson.trace[0].server.name).toMatch(/everything/);

		const folder = await createTempFolder({ 'a.txt': 'A' });
		try {
			const files = await mcp.runMcpChain([listTools()], {
				credentials: { mcpStdioServerApi: mcp.stdioCredential(filesystemStdio(folder)) },
			});
			const filesJson = outputOf(files, 'List Tools')[0].json as any;
			expect(filesJson.tools.map((tool: any) => tool.name)).toEqual(
				expect.arrayContaining(['read_text_file', 'list_directory']),
			);
		} finally {
			await removeTempFolder(folder);
		}
	});

	it('fails every item with the reason when the server cannot start, or keeps them under continue-on-fail', async () => {
		const broken = {
			mcpStdioServerApi: mcp.stdioCredential({
				transport: 'stdio',
				command: 'no-such-mcp-server-command',
				args: [],
				env: {},
			}),
		};
		const failed = await mcp.runMcpChain([listTools()], { credentials: broken });
		expect(errorOf(failed, 'List Tools')?.message).toContain(
			'Could not connect to the MCP server (stdio: no-such-mcp-server-command)',
		);

		const kept = await mcp.runMcpChain([{ ...listTools(), onError: 'continueRegularOutput' }], {
			credentials: broken,
			inputItems: [{ json: { ticket: 1 } }, { json: { ticket: 2 } }],
		});
		const items = outputOf(kept, 'List Tools');
		expect(items.map((item) => item.json.ticket)).toEqual([1, 2]);
		expect(items[0].json.error).toContain('Could not connect to the MCP server');
	});
});
