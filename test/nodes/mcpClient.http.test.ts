import type { IDataObject } from 'n8n-workflow';
import { errorOf, outputOf, type EngineRun } from '../support/engine';
import * as mcp from '../support/mcpWorkflow';
import { startHttpServer, type HttpServerHandle } from '../support/servers';

mcp.stopServersAfterAll();

const TOKEN = 'tok-7f3a9c1e-do-not-leak';
const HEADERS = {
	'X-Api-Key': 'key with spaces',
	'X-Tenant': 'tenant with spaces 42',
	'X-Team': 'a b',
};
// Values of six characters or more are secrets; 'a b' is short enough to stay readable.
const SECRETS = [TOKEN, HEADERS['X-Api-Key'], HEADERS['X-Tenant']];

const listTools = (extra: Record<string, unknown> = {}) =>
	mcp.mcpClientNode('List Tools', { operation: 'listTools', connectionType: 'http' }, extra);
const execute = (extra: Record<string, unknown> = {}) =>
	mcp.mcpClientNode('Execute', { operation: 'executeToolCalls', connectionType: 'http' }, extra);

const call = (name: string, args: Record<string, unknown> = {}) => mcp.pendingCall(name, args);
/** The item's trace entries of one step, in order. */
const stepsOf = (json: IDataObject, step: string) =>
	mcp.conversationOf(json).trace.filter((entry) => entry.step === step);
/** The server as the List Tools trace entry describes it. */
const listedServer = (json: IDataObject) =>
	mcp.conversationOf(json).trace[0].server as Record<string, unknown>;

/** List Tools → Execute over HTTP with one item; its output json. */
async function listAndExecute(credential: ReturnType<typeof mcp.httpCredential>, calls: unknown[]) {
	const run = await mcp.runMcpChain([listTools(), execute()], {
		credentials: { mcpHttpServerApi: credential },
		inputItems: [{ json: { toolCalls: calls } }],
	});
	expectNoSecret(run, 'Execute');
	const { json } = outputOf(run, 'Execute')[0];
	mcp.expectConversationItem(json);
	return json;
}

/** The outputs and errors of the given nodes, as text, hold none of the credential values. */
function expectNoSecret(run: EngineRun, ...nodes: string[]): void {
	const text = JSON.stringify(nodes.map((node) => run.nodes[node]));
	for (const secret of SECRETS) expect(text).not.toContain(secret);
}

describe('MCP Client over HTTP', () => {
	let bearerServer: HttpServerHandle;
	let headerServer: HttpServerHandle;
	let legacyServer: HttpServerHandle;

	beforeAll(async () => {
		[bearerServer, headerServer, legacyServer] = await Promise.all([
			startHttpServer('fault', {
				name: 'bearer-server',
				requireHeaders: { Authorization: `Bearer ${TOKEN}` },
			}),
			startHttpServer('fault', { name: 'header-server', requireHeaders: HEADERS }),
			startHttpServer('fault', { name: 'legacy-server', sseOnly: true, requireHeaders: HEADERS }),
		]);
	});

	it('authenticates with a bearer token on Streamable HTTP, and the token never reaches the item', async () => {
		const json = await listAndExecute(
			mcp.httpCredential(bearerServer.url, { transport: 'streamableHttp', token: TOKEN }),
			[
				call('headers'),
				call('echo', { text: 'over http' }),
				// A tool that repeats the bare token it was given, as a server reporting its credential might.
				call('echo', { text: `authenticated with ${TOKEN}` }),
			],
		);
		expect(listedServer(json)).toMatchObject({
			name: 'bearer-server',
			transport: 'streamableHttp',
		});
		const [headers, echo, repeated] = mcp.toolMessages(json);
		expect(echo).toMatchObject({ content: 'over http' });
		expect(repeated).toMatchObject({ content: 'authenticated with [redacted]' });
		const [, , repeatedCheck] = stepsOf(json, 'arguments.validation');
		const [, , repeatedRequest] = stepsOf(json, 'tools.call.request');
		expect(repeatedCheck.payload).toEqual({ text: 'authenticated with [redacted]' });
		expect(repeatedRequest.payload).toEqual({
			name: 'echo',
			arguments: { text: 'authenticated with [redacted]' },
		});
		// The server required the token on every request; what it saw comes back with the token hidden.
		expect(headers.structuredContent?.headers).toMatchObject({
			authorization: '[redacted]',
			'mcp-session-id': expect.any(String),
			'mcp-protocol-version': listedServer(json).protocolVersion,
		});
		expect(headers.content).toContain('"authorization":"[redacted]"');
		expect(stepsOf(json, 'tools.call.result').map((entry) => entry.status)).toEqual([
			'ok',
			'ok',
			'ok',
		]);
		// The trace's copy of what the server saw hides the token too.
		expect(
			(stepsOf(json, 'tools.call.result')[0].payload as any).structuredContent.headers,
		).toMatchObject({ authorization: '[redacted]' });
	});

	it('hides a token pasted with a line end after it, as the server receives it without one', async () => {
		const json = await listAndExecute(
			mcp.httpCredential(bearerServer.url, { transport: 'streamableHttp', token: `${TOKEN}\n` }),
			[call('headers'), call('echo', { text: `authenticated with ${TOKEN}` })],
		);
		const [headers, repeated] = mcp.toolMessages(json);
		expect(headers.structuredContent?.headers).toMatchObject({ authorization: '[redacted]' });
		expect(repeated).toMatchObject({ content: 'authenticated with [redacted]' });
	});

	it('sends custom headers, values with spaces as typed, on every request of the legacy SSE transport', async () => {
		const json = await listAndExecute(
			mcp.httpCredential(headerServer.sseUrl!, { transport: 'sse', headers: HEADERS }),
			[call('headers')],
		);
		expect(listedServer(json)).toMatchObject({ name: 'header-server', transport: 'sse' });
		const [headers] = mcp.toolMessages(json);
		expect(headers.isError).toBeUndefined();
		// The server answers 401 to any request without the exact values, so each arrived as typed.
		expect(headers.structuredContent?.headers).toMatchObject({
			'x-api-key': '[redacted]',
			'x-tenant': '[redacted]',
			'x-team': 'a b',
		});
		expect(headers.content).toContain('"x-tenant":"[redacted]"');
	});

	it('falls back from Streamable HTTP to SSE on an SSE-only server, with the headers', async () => {
		const json = await listAndExecute(
			mcp.httpCredential(legacyServer.sseUrl!, { transport: 'auto', headers: HEADERS }),
			[call('headers'), call('add', { a: 2, b: 3 })],
		);
		expect(listedServer(json)).toMatchObject({ name: 'legacy-server', transport: 'sse' });
		const [headers, add] = mcp.toolMessages(json);
		expect(headers.structuredContent?.headers).toMatchObject({
			'x-api-key': '[redacted]',
			'x-team': 'a b',
		});
		expect(add).toMatchObject({ content: '5', structuredContent: { sum: 5 } });
	});

	it('fails the item with an error naming the server when the token is wrong, and leaks neither token', async () => {
		const wrongToken = 'wrong-token-5d2e8b';
		const credentials = {
			mcpHttpServerApi: mcp.httpCredential(bearerServer.url, { token: wrongToken }),
		};
		const failed = await mcp.runMcpChain([listTools()], { credentials });
		const error = errorOf(failed, 'List Tools');
		expect(error?.message).toBe(`Could not connect to the MCP server (HTTP: ${bearerServer.url})`);
		expect(error?.description).toContain('Missing or wrong authorization header');
		expectNoSecret(failed, 'List Tools');
		expect(JSON.stringify(failed.nodes)).not.toContain(wrongToken);

		// A key in the URL's query is never shown.
		const keyed = await mcp.runMcpChain([listTools()], {
			credentials: {
				mcpHttpServerApi: mcp.httpCredential(`${bearerServer.url}?api_key=query-key-90d1`, {
					token: wrongToken,
				}),
			},
		});
		expect(errorOf(keyed, 'List Tools')?.message).toBe(
			`Could not connect to the MCP server (HTTP: ${bearerServer.url}?…)`,
		);
		expect(JSON.stringify(keyed.nodes)).not.toContain('query-key-90d1');

		const kept = await mcp.runMcpChain([execute({ onError: 'continueRegularOutput' })], {
			credentials,
			inputItems: [{ json: { ticket: 7, toolCalls: [call('echo', { text: 'x' })] } }],
		});
		const [item] = outputOf(kept, 'Execute');
		expect(item.json).toMatchObject({
			ticket: 7,
			error: `Could not connect to the MCP server (HTTP: ${bearerServer.url})`,
		});
		expect(JSON.stringify(kept.nodes)).not.toContain(wrongToken);
	});

	it('lists and calls server-everything over Streamable HTTP, checking arguments against its schema', async () => {
		const everything = await startHttpServer('everything');
		const credentials = { mcpHttpServerApi: mcp.httpCredential(everything.url) };
		const listed = await mcp.runMcpChain([listTools()], { credentials });
		const listedJson = outputOf(listed, 'List Tools')[0].json;
		mcp.expectConversationItem(listedJson);
		expect(listedServer(listedJson)).toMatchObject({
			name: expect.stringMatching(/everything/),
			transport: 'streamableHttp',
		});
		const echoTool = mcp.conversationOf(listedJson).tools.find((tool) => tool.name === 'echo');
		expect(echoTool?.inputSchema).toMatchObject({
			type: 'object',
			properties: { message: { type: 'string' } },
			required: ['message'],
		});

		const valid = call('echo', { message: 'hello over http' });
		const wrongType = call('echo', { message: 42 });
		const missing = call('echo', { text: 'wrong name' });
		const run = await mcp.runMcpChain([listTools(), execute()], {
			credentials,
			inputItems: [{ json: { toolCalls: [valid, wrongType, missing] } }],
		});
		const { json } = outputOf(run, 'Execute')[0];
		mcp.expectConversationItem(json);
		const [ok, badType, badName] = mcp.toolMessages(json);
		expect(ok).toEqual({
			role: 'tool',
			tool_call_id: valid.id,
			name: 'echo',
			content: 'Echo: hello over http',
		});
		expect(badType).toMatchObject({ isError: true });
		expect(badType.content).toContain(
			"- '/message' must be string (schema rule #/properties/message/type)",
		);
		expect(badName.content).toContain(
			"- the arguments object must have required property 'message' (schema rule #/required)",
		);
		expect(stepsOf(json, 'tools.call.result').map((entry) => entry.status)).toEqual([
			'ok',
			'invalidArguments',
			'invalidArguments',
		]);
		expect(stepsOf(json, 'arguments.validation').map((entry) => entry.status)).toEqual([
			'valid',
			'invalid',
			'invalid',
		]);
		// Only the valid call was sent.
		expect(
			stepsOf(json, 'tools.call.request').map((entry) => [entry.callId, entry.payload]),
		).toEqual([[valid.id, { name: 'echo', arguments: { message: 'hello over http' } }]]);
	});
});
