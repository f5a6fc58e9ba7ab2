import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunctions,
	IDataObject,
	ILoadOptionsFunctions,
	INode,
} from 'n8n-workflow';
import {
	getToolArgumentFields,
	getToolNames,
	mcpServerConnection,
	searchTools,
} from '../../nodes/McpClient/methods';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import { editorContextFor, errorOf, nodeTypesFrom, outputOf } from '../support/engine';
import { optionsOf } from '../support/formFields';
import * as mcp from '../support/mcpWorkflow';
import {
	childEnv,
	createTempFolder,
	faultStdio,
	filesystemStdio,
	listTestServerProcesses,
	removeTempFolder,
	startHttpServer,
} from '../support/servers';

mcp.stopServersAfterAll();

const fault = mcp.faultCredentials();
const fromList = (value: string) => ({ __rl: true, mode: 'list', value });
const byName = (value: string) => ({ __rl: true, mode: 'name', value });

const callTool = (parameters: Record<string, unknown>, extra = {}) =>
	mcp.mcpClientNode(
		'Call Tool',
		{ operation: 'callTool', argumentsSource: 'form', ...parameters },
		extra,
	);
const withForm = (tool: unknown, value: Record<string, unknown> | null) =>
	callTool({ tool, formArguments: { mappingMode: 'defineBelow', value } });
const withJson = (tool: unknown, jsonArguments: string, options: Record<string, unknown> = {}) =>
	callTool({ tool, argumentsSource: 'json', jsonArguments, options });

async function callOnce(
	node: INode,
	credentials: Record<string, ICredentialDataDecryptedObject> = fault,
) {
	const run = await mcp.runMcpChain([node], { credentials, inputItems: [{ json: { ticket: 1 } }] });
	const items = outputOf(run, 'Call Tool');
	expect(items).toHaveLength(1);
	expect(items[0].pairedItem).toEqual({ item: 0 });
	return items[0].json;
}

/** What the editor hands a load-options method: n8n's own context for the node and its credential. */
function editorContext(
	parameters: IDataObject,
	credentials: Record<string, ICredentialDataDecryptedObject>,
): Promise<ILoadOptionsFunctions> {
	return editorContextFor(
		mcp.mcpClientNode('MCP Client', parameters),
		nodeTypesFrom(new McpClient()),
		credentials,
	);
}

const testCredential = (type: string, data: ICredentialDataDecryptedObject) =>
	mcpServerConnection.call({} as ICredentialTestFunctions, {
		id: 'credential',
		name: 'MCP server',
		type,
		data,
	});

/** A stateless Streamable HTTP server (no session), as hosted servers often run, offering `tools` that each answer their name. */
async function statelessServer(tools: string[], port = 0) {
	let listings = 0;
	const server = http.createServer(async (req, res) => {
		const chunks: Buffer[] = [];
		for await (const chunk of req) chunks.push(chunk as Buffer);
		const body = chunks.length ? JSON.parse(Buffer.concat(chunks).toString()) : undefined;
		if (body?.method === 'tools/list') listings++;
		const mcpServer = new McpServer({ name: 'stateless', version: '1.0.0' });
		for (const name of tools)
			mcpServer.registerTool(name, { description: name }, async () => ({
				content: [{ type: 'text', text: name }],
			}));
		const transport = new StreamableHTTPServerTransport({
			sessionIdGenerator: undefined,
			enableJsonResponse: true,
		});
		// No socket kept alive: the client's next request after a redeploy is not sent on a dead one.
		res.setHeader('Connection', 'close');
		res.on('close', () => void transport.close());
		await mcpServer.connect(transport);
		await transport.handleRequest(req, res, body);
	});
	await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
	const bound = (server.address() as AddressInfo).port;
	return {
		url: `http://127.0.0.1:${bound}/mcp`,
		port: bound,
		listings: () => listings,
		stop: () =>
			new Promise<void>((resolve) => {
				server.closeAllConnections();
				server.close(() => resolve());
			}),
	};
}

describe('MCP Client: Call Tool', () => {
	it('calls the tool chosen from the list with form arguments, converting text typed into number fields', async () => {
		const json = await callOnce(withForm(fromList('add'), { a: '2', b: 3 }));
		expect(json).toEqual({
			tool: 'add',
			arguments: { a: 2, b: 3 },
			status: 'ok',
			isError: false,
			result: '5',
			structuredContent: { sum: 5 },
			durationMs: expect.any(Number),
			trace: expect.any(Array),
		});
		expect((json.trace as Array<{ step: string }>).map((entry) => entry.step)).toEqual([
			'arguments.validation',
			'tools.call.request',
			'tools.call.result',
		]);
	});

	it('takes JSON arguments, per item through an expression', async () => {
		const node = withJson(byName('add'), '={{ JSON.stringify({ a: $json.x, b: 0.5 }) }}');
		const run = await mcp.runMcpChain([node], {
			credentials: fault,
			inputItems: [{ json: { x: 1 } }, { json: { x: 10 } }],
		});
		const items = outputOf(run, 'Call Tool');
		expect(
			items.map((item) => [item.json.arguments, item.json.structuredContent, item.pairedItem]),
		).toEqual([
			[{ a: 1, b: 0.5 }, { sum: 1.5 }, { item: 0 }],
			[{ a: 10, b: 0.5 }, { sum: 10.5 }, { item: 1 }],
		]);
	});

	it('refuses arguments that break the input schema without calling the server', async () => {
		const json = await callOnce(
			withJson(
				fromList('submit_order'),
				'{"customer": {"name": "Ann"}, "items": [{"sku": "abc", "quantity": 0}]}',
			),
		);
		expect(json).toEqual({
			tool: 'submit_order',
			// Set only when the server was called.
			arguments: null,
			status: 'invalidArguments',
			isError: true,
			result: [
				"The arguments for tool 'submit_order' do not match its input schema, so the server was not called:",
				`- '/items/0/sku' must match pattern "^[A-Z]{3}-[0-9]{3}$" (schema rule #/properties/items/items/properties/sku/pattern)`,
				"- '/items/0/quantity' must be >= 1 (schema rule #/properties/items/items/properties/quantity/minimum)",
				'Fix these and call the tool again.',
			].join('\n'),
			durationMs: expect.any(Number),
			trace: expect.any(Array),
		});
	});

	it('reports an unknown tool name as a result, or fails the node when asked to', async () => {
		const json = await callOnce(withForm(byName('no_such_tool'), { a: 1 }));
		expect(json).toEqual({
			tool: 'no_such_tool',
			arguments: null,
			status: 'unknownTool',
			isError: true,
			result: "Unknown tool 'no_such_tool'. The server was not called.",
			durationMs: expect.any(Number),
			trace: expect.any(Array),
		});

		const failed = await mcp.runMcpChain(
			[withJson(byName('no_such_tool'), '{}', { onToolError: 'failNode' })],
			{ credentials: fault },
		);
		expect(errorOf(failed, 'Call Tool')).toMatchObject({
			message: 'Tool call failed (unknownTool)',
			description: "Unknown tool 'no_such_tool'. The server was not called.",
		});
	});

	it('under continue-on-fail, a call that failed the node goes on with what the tool said and its trace', async () => {
		const node = callTool(
			{
				tool: byName('fail'),
				argumentsSource: 'json',
				jsonArguments: '{}',
				options: { onToolError: 'failNode' },
			},
			{ onError: 'continueRegularOutput' },
		);
		const run = await mcp.runMcpChain([node], {
			credentials: fault,
			inputItems: [{ json: { ticket: 1 } }],
		});
		const [item] = outputOf(run, 'Call Tool');
		expect(item.json).toMatchObject({
			tool: 'fail',
			status: 'toolError',
			result: expect.stringContaining('The tool failed on purpose.'),
			error: 'Tool call failed (toolError)',
		});
		expect((item.json.trace as Array<{ step: string }>).map((entry) => entry.step)).toContain(
			'tools.call.result',
		);
	});

	it('calls a tool a stateless server gained since it was listed, listing afresh only for the name it lacked', async () => {
		const first = await statelessServer(['a']);
		const credentials = {
			mcpHttpServerApi: mcp.httpCredential(first.url, { transport: 'streamableHttp' }),
		};
		const over = (tool: string) =>
			callTool({
				tool: byName(tool),
				argumentsSource: 'json',
				jsonArguments: '{}',
				connectionType: 'http',
			});
		expect(await callOnce(over('a'), credentials)).toMatchObject({ status: 'ok', result: 'a' });
		await first.stop();
		// Redeployed with one more tool; a stateless server cannot say its list changed.
		const second = await statelessServer(['a', 'b'], first.port);
		try {
			expect(await callOnce(over('b'), credentials)).toMatchObject({ status: 'ok', result: 'b' });
			expect(second.listings()).toBe(1);
			expect(await callOnce(over('b'), credentials)).toMatchObject({ status: 'ok', result: 'b' });
			expect(second.listings()).toBe(1);
		} finally {
			await second.stop();
		}
	});

	it('reads a file with server-filesystem, and a path outside its folder is an error result', async () => {
		const folder = await createTempFolder({ 'notes/today.txt': 'first line\nsecond line\n' });
		const outside = await createTempFolder({ 'secret.txt': 'not for you' });
		try {
			const credentials = { mcpStdioServerApi: mcp.stdioCredential(filesystemStdio(folder)) };
			const file = path.join(folder, 'notes', 'today.txt');
			const read = await callOnce(
				withJson(fromList('read_text_file'), JSON.stringify({ path: file })),
				credentials,
			);
			expect(read).toMatchObject({
				tool: 'read_text_file',
				arguments: { path: file },
				status: 'ok',
				isError: false,
				result: 'first line\nsecond line\n',
				structuredContent: { content: 'first line\nsecond line\n' },
			});

			const denied = await callOnce(
				withForm(fromList('read_text_file'), { path: path.join(outside, 'secret.txt') }),
				credentials,
			);
			expect(denied).toMatchObject({ status: 'toolError', isError: true });
			expect(denied.result).toContain('Access denied - path outside allowed directories');
			expect(denied.result).not.toContain('not for you');
		} finally {
			await removeTempFolder(folder);
			await removeTempFolder(outside);
		}
	});

	it('fails with the reason when the server dies on start, with the environment secret it printed redacted', async () => {
		const script =
			"console.error('login refused for key ' + process.env.SERVICE_KEY); process.exit(3)";
		const credentials = {
			mcpStdioServerApi: mcp.stdioCredential({
				transport: 'stdio',
				command: process.execPath,
				args: ['-e', script],
				env: childEnv({ SERVICE_KEY: 'sk-live-8d1c4f' }),
			}),
		};
		const run = await mcp.runMcpChain([withForm(fromList('add'), { a: 1, b: 2 })], { credentials });
		const error = errorOf(run, 'Call Tool');
		expect(error?.message).toBe(
			`Could not connect to the MCP server (stdio: ${process.execPath} -e ${script})`,
		);
		expect(error?.description).toContain("The server's stderr:\nlogin refused for key [redacted]");
		expect(JSON.stringify(run.nodes)).not.toContain('sk-live-8d1c4f');
	});
});

describe('MCP Client: editor methods', () => {
	const editor = (parameters: IDataObject = {}) =>
		editorContext({ operation: 'callTool', ...parameters }, fault);

	it('lists the live tool names, titles first, for the tool pickers', async () => {
		const options = await getToolNames.call(await editor());
		expect(options).toHaveLength(16);
		expect(options[0]).toEqual({
			name: 'Echo',
			value: 'echo',
			description: 'Returns the given text unchanged.',
		});
		expect(options.map((option) => option.value)).toEqual(
			expect.arrayContaining(['add', 'math.mul', 'submit_order', 'headers']),
		);
	});

	it('searches tools by name or title, case-insensitively', async () => {
		const values = async (filter?: string) =>
			(await searchTools.call(await editor(), filter)).results.map((result) => result.value);
		expect(await values('ECHO')).toEqual(['echo']);
		expect(await values('mul')).toEqual(['math.mul']);
		expect(await values('order')).toEqual(['submit_order']);
		expect(await values('no match at all')).toEqual([]);
		expect(await values()).toHaveLength(16);
	});

	it('builds the argument form from the tool’s input schema: required flags, types, enum options', async () => {
		const { fields } = await getToolArgumentFields.call(
			await editor({ tool: fromList('submit_order') }),
		);
		const common = { defaultMatch: false, display: true };
		expect(fields).toEqual([
			{ id: 'customer', displayName: 'customer', required: true, type: 'object', ...common },
			{ id: 'items', displayName: 'items', required: true, type: 'array', ...common },
			{
				id: 'priority',
				displayName: 'priority',
				required: false,
				type: 'options',
				options: optionsOf('low', 'normal', 'high'),
				...common,
			},
			{ id: 'note', displayName: 'note', required: false, type: 'string', ...common },
		]);

		const add = await getToolArgumentFields.call(await editor({ tool: byName('add') }));
		expect(add.fields).toEqual([
			{ id: 'a', displayName: 'a', required: true, type: 'number', ...common },
			{ id: 'b', displayName: 'b', required: true, type: 'number', ...common },
		]);

		expect(await getToolArgumentFields.call(await editor({ tool: fromList('nope') }))).toEqual({
			fields: [],
			emptyFieldsNotice: "The server has no tool named 'nope'",
		});
	});

	it('tests a stdio credential: what answered, and no server process stays behind', async () => {
		const config = faultStdio({ name: 'credential-check', serverVersion: '2.3.4' });
		const result = await testCredential('mcpStdioServerApi', mcp.stdioCredential(config));
		expect(result).toEqual({
			status: 'OK',
			message: 'Connected to credential-check 2.3.4 (MCP 2025-11-25, stdio): 16 tools',
		});
		expect(
			listTestServerProcesses().filter((server) => server.command.includes('credential-check')),
		).toEqual([]);
	});

	it('tests an HTTP credential', async () => {
		const server = await startHttpServer('fault', {
			name: 'http-check',
			requireHeaders: { Authorization: 'Bearer cred-token-1234' },
		});
		expect(
			await testCredential(
				'mcpHttpServerApi',
				mcp.httpCredential(server.url, { token: 'cred-token-1234' }),
			),
		).toEqual({
			status: 'OK',
			message: 'Connected to http-check 1.0.0 (MCP 2025-11-25, streamableHttp): 16 tools',
		});
		const refused = await testCredential(
			'mcpHttpServerApi',
			mcp.httpCredential(server.url, { token: 'wrong-token-5678' }),
		);
		expect(refused.status).toBe('Error');
		expect(refused.message).toContain('Missing or wrong authorization header');
	});

	it('reports why a credential does not work', async () => {
		const broken = mcp.stdioCredential({
			transport: 'stdio',
			command: 'no-such-mcp-server-command',
			args: [],
			env: {},
		});
		const result = await testCredential('mcpStdioServerApi', broken);
		expect(result.status).toBe('Error');
		expect(result.message).toContain('spawn no-such-mcp-server-command ENOENT');

		expect(await testCredential('someOtherApi', { url: 'x' })).toEqual({
			status: 'Error',
			message: 'Not an MCP server credential: someOtherApi',
		});
	});
});
