import path from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import {
	StreamableHTTPClientTransport,
	StreamableHTTPError,
} from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
	CallToolResultSchema,
	ErrorCode,
	type CallToolResult,
	type Progress,
	type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import {
	createTempFolder,
	everythingStdio,
	faultStdio,
	filesystemStdio,
	isProcessAlive,
	listTestServerProcesses,
	removeTempFolder,
	RUN_ID_VARIABLE,
	startHttpServer,
	stopAllServers,
	type HttpServerHandle,
	type StdioServerConfig,
} from '../support/servers';

const FAULT_TOOLS = [
	'echo',
	'add',
	'math.mul',
	'submit_order',
	'slow',
	'hang',
	'crash',
	'fail',
	'env_file',
	'throws',
	'bad_output',
	'garbage',
	'image',
	'counter',
	'pid',
	'headers',
];
const AUTH = { Authorization: 'Bearer s3cret', 'X-Api-Key': 'k-123' };

const openClients = new Set<Client>();

function newClient(): Client {
	const client = new Client({ name: 'servers-test', version: '1.0.0' });
	openClients.add(client);
	return client;
}

async function connectStdio(config: StdioServerConfig) {
	const transport = new StdioClientTransport({
		command: config.command,
		args: config.args,
		env: config.env,
		cwd: config.cwd,
		stderr: 'pipe',
	});
	let stderr = '';
	transport.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
	const client = newClient();
	await client.connect(transport);
	return { client, transport, stderr: () => stderr };
}

interface HttpClientOptions {
	headers?: Record<string, string>;
	fetch?: FetchLike;
}

async function connectStreamable(url: string, { headers, fetch }: HttpClientOptions = {}) {
	const client = newClient();
	await client.connect(
		new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers }, fetch }),
	);
	return client;
}

async function connectSse(url: string, { headers, fetch }: HttpClientOptions = {}) {
	const client = newClient();
	await client.connect(new SSEClientTransport(new URL(url), { requestInit: { headers }, fetch }));
	return client;
}

/** Backwards-compatible connect as the MCP spec describes it: Streamable HTTP first, legacy SSE after a 4xx. */
async function connectWithFallback(
	url: string,
): Promise<{ client: Client; via: 'streamable' | 'sse' }> {
	try {
		return { client: await connectStreamable(url), via: 'streamable' };
	} catch (error) {
		const status = error instanceof StreamableHTTPError ? (error.code ?? 0) : 0;
		if (status < 400 || status >= 500) throw error;
	}
	return { client: await connectSse(url), via: 'sse' };
}

async function listAllTools(client: Client) {
	const pages: Array<{ cursor?: string; tools: Tool[] }> = [];
	let cursor: string | undefined;
	do {
		const result = await client.listTools(cursor === undefined ? undefined : { cursor });
		pages.push({ cursor, tools: result.tools });
		cursor = result.nextCursor;
	} while (cursor !== undefined);
	return { pages, tools: pages.flatMap((page) => page.tools) };
}

async function call(
	client: Client,
	name: string,
	args?: Record<string, unknown>,
): Promise<CallToolResult> {
	return (await client.callTool({ name, arguments: args })) as CallToolResult;
}

function firstText(result: CallToolResult): string {
	const block = result.content.find((item) => item.type === 'text');
	if (block?.type !== 'text') throw new Error(`no text in ${JSON.stringify(result)}`);
	return block.text;
}

async function waitFor(check: () => boolean, ms = 5000): Promise<void> {
	const deadline = Date.now() + ms;
	while (!check()) {
		if (Date.now() > deadline) throw new Error('condition not met in time');
		await new Promise((resolve) => setTimeout(resolve, 50));
	}
}

afterEach(async () => {
	await Promise.all([...openClients].map((client) => client.close().catch(() => undefined)));
	openClients.clear();
});

afterAll(stopAllServers);

describe('fault server over stdio', () => {
	it('pages tools/list by 3 behind an opaque cursor', async () => {
		const { client } = await connectStdio(faultStdio());
		const { pages, tools } = await listAllTools(client);
		expect(tools.map((tool) => tool.name)).toEqual(FAULT_TOOLS);
		expect(pages.length).toBe(Math.ceil(FAULT_TOOLS.length / 3));
		for (const page of pages) expect(page.tools.length).toBeLessThanOrEqual(3);
		expect(pages[1].cursor).toEqual(expect.any(String));
		await expect(client.listTools({ cursor: 'not-a-cursor' })).rejects.toMatchObject({
			code: ErrorCode.InvalidParams,
		});
	});

	it('declares hand-written JSON Schemas', async () => {
		const { client } = await connectStdio(faultStdio());
		const byName = new Map((await listAllTools(client)).tools.map((tool) => [tool.name, tool]));
		for (const tool of byName.values()) expect(tool.inputSchema.type).toBe('object');
		expect(byName.get('echo')!.inputSchema).toMatchObject({
			required: ['text'],
			additionalProperties: false,
		});
		expect(byName.get('add')!.outputSchema).toMatchObject({
			properties: { sum: { type: 'number' } },
		});
		expect(byName.get('submit_order')!.inputSchema).toMatchObject({
			$schema: 'https://json-schema.org/draft/2020-12/schema',
			properties: {
				priority: { enum: ['low', 'normal', 'high'] },
				items: {
					type: 'array',
					items: { required: ['sku', 'quantity'], additionalProperties: false },
				},
			},
		});
	});

	it('answers echo, add, math.mul and submit_order, and reports bad arguments as a tool error', async () => {
		const { client } = await connectStdio(faultStdio());
		expect(firstText(await call(client, 'echo', { text: 'hi there' }))).toBe('hi there');
		const sum = await call(client, 'add', { a: 2, b: 3.5 });
		expect(firstText(sum)).toBe('5.5');
		expect(sum.structuredContent).toEqual({ sum: 5.5 });
		expect(firstText(await call(client, 'math.mul', { a: 6, b: 7 }))).toBe('42');
		const order = {
			customer: { name: 'Ada' },
			items: [{ sku: 'ABC-123', quantity: 2 }],
			priority: 'high',
			note: null,
		};
		expect((await call(client, 'submit_order', order)).structuredContent).toEqual({
			received: order,
		});
		const invalid = await call(client, 'echo', { text: 1, extra: true });
		expect(invalid.isError).toBe(true);
		expect(firstText(invalid)).toMatch(/Invalid arguments for tool echo/);
		await expect(call(client, 'nope')).rejects.toMatchObject({ code: ErrorCode.InvalidParams });
	});

	it('sends progress from slow only when asked to', async () => {
		const { client } = await connectStdio(faultStdio());
		const updates: Progress[] = [];
		const onprogress = (progress: Progress) => updates.push(progress);
		const quiet = await client.callTool({ name: 'slow', arguments: { ms: 250 } }, undefined, {
			onprogress,
		});
		expect(firstText(quiet as CallToolResult)).toBe('waited 250 ms');
		expect(updates).toEqual([]);
		await client.callTool({ name: 'slow', arguments: { ms: 450, progress: true } }, undefined, {
			onprogress,
		});
		expect(updates.map((update) => update.progress)).toEqual([100, 200, 300, 400]);
		expect(updates[0]).toMatchObject({ total: 450, message: '100 of 450 ms' });
	});

	it('stops hang when the call is aborted, and the connection stays usable', async () => {
		const { client, stderr } = await connectStdio(faultStdio());
		const controller = new AbortController();
		const pending = client.callTool({ name: 'hang' }, undefined, { signal: controller.signal });
		setTimeout(() => controller.abort(new Error('stopped by the test')), 200);
		await expect(pending).rejects.toThrow('stopped by the test');
		await waitFor(() => stderr().includes('hang cancelled'));
		expect(firstText(await call(client, 'echo', { text: 'still here' }))).toBe('still here');
	});

	it('rejects the pending call with a connection-closed error when crash kills the process', async () => {
		const { client, transport } = await connectStdio(faultStdio());
		const pid = transport.pid!;
		const closed = new Promise<void>((resolve) => (client.onclose = resolve));
		await expect(call(client, 'crash')).rejects.toMatchObject({ code: ErrorCode.ConnectionClosed });
		await closed;
		await waitFor(() => !isProcessAlive(pid));
	});

	it('returns a tool error from fail and a JSON-RPC error from throws', async () => {
		const { client } = await connectStdio(faultStdio());
		const failed = await call(client, 'fail');
		expect(failed.isError).toBe(true);
		expect(firstText(failed)).toBe('The tool failed on purpose.');
		await expect(call(client, 'throws')).rejects.toMatchObject({
			code: ErrorCode.InvalidParams,
			message: expect.stringContaining('rejected on purpose'),
		});
	});

	it('returns structured content that breaks the declared output schema from bad_output', async () => {
		const { client } = await connectStdio(faultStdio());
		const { pages, tools } = await listAllTools(client);
		const schema = tools.find((tool) => tool.name === 'bad_output')!.outputSchema!;
		const raw = await client.request(
			{ method: 'tools/call', params: { name: 'bad_output' } },
			CallToolResultSchema,
		);
		expect(raw.structuredContent).toEqual({ count: 'many' });
		expect(new Ajv2020().validate(schema, raw.structuredContent)).toBe(false);
		// The SDK client keeps output validators only for the page it listed last.
		const page = pages.find((candidate) =>
			candidate.tools.some((tool) => tool.name === 'bad_output'),
		)!;
		await client.listTools({ cursor: page.cursor });
		await expect(call(client, 'bad_output')).rejects.toThrow(
			/does not match the tool's output schema/,
		);
	});

	it('answers garbage after non-JSON lines on stdout, which the SDK client skips', async () => {
		const { client } = await connectStdio(faultStdio());
		const errors: Error[] = [];
		client.onerror = (error) => errors.push(error);
		expect(firstText(await call(client, 'garbage'))).toBe('answer after garbage');
		expect(errors.length).toBeGreaterThan(0);
		expect(firstText(await call(client, 'echo', { text: 'after' }))).toBe('after');
	});

	it('returns image, audio, embedded blob, resource link and text from image', async () => {
		const { client } = await connectStdio(faultStdio());
		const { content } = await call(client, 'image');
		expect(content.map((item) => item.type)).toEqual([
			'image',
			'audio',
			'resource',
			'resource_link',
			'text',
		]);
		const [image, audio, resource, link] = content;
		if (
			image.type !== 'image' ||
			audio.type !== 'audio' ||
			resource.type !== 'resource' ||
			link.type !== 'resource_link'
		) {
			throw new Error('unexpected content order');
		}
		const pngSignature = Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]);
		expect(Buffer.from(image.data, 'base64').subarray(0, 8)).toEqual(pngSignature);
		expect(image.mimeType).toBe('image/png');
		expect(Buffer.from(audio.data, 'base64').toString('ascii', 8, 12)).toBe('WAVE');
		expect(resource.resource).toMatchObject({
			uri: 'fault://files/blob.bin',
			blob: expect.any(String),
		});
		expect(link).toMatchObject({ uri: 'fault://files/readme.txt', name: 'readme.txt' });
	});

	it('counts per process, reports its pid and leaves no process after close', async () => {
		const { client, transport } = await connectStdio(faultStdio());
		const counts = [];
		for (let i = 0; i < 3; i++) counts.push((await call(client, 'counter')).structuredContent);
		expect(counts).toEqual([{ count: 1 }, { count: 2 }, { count: 3 }]);
		const pid = (await call(client, 'pid')).structuredContent?.pid;
		expect(pid).toBe(transport.pid);
		const listed = listTestServerProcesses().find((candidate) => candidate.pid === pid);
		expect(listed).toMatchObject({ runId: process.env[RUN_ID_VARIABLE] });
		await client.close();
		expect(isProcessAlive(pid as number)).toBe(false);
		expect(listTestServerProcesses().map((candidate) => candidate.pid)).not.toContain(pid);
	});

	it('takes another server name, version and tool prefix', async () => {
		const config = faultStdio({ name: 'beta', serverVersion: '2.0.0', toolsPrefix: 'beta_' });
		const { client } = await connectStdio(config);
		expect(client.getServerVersion()).toEqual({ name: 'beta', version: '2.0.0' });
		const { tools } = await listAllTools(client);
		expect(tools.map((tool) => tool.name)).toEqual(FAULT_TOOLS.map((name) => `beta_${name}`));
		expect(firstText(await call(client, 'beta_echo', { text: 'b' }))).toBe('b');
	});
});

describe('fault server over HTTP', () => {
	let server: HttpServerHandle;
	beforeAll(async () => {
		server = await startHttpServer('fault');
	});
	afterAll(() => server.stop());

	it('serves Streamable HTTP with sessions, progress and one process for all calls', async () => {
		const client = await connectStreamable(server.url);
		expect((await listAllTools(client)).tools.map((tool) => tool.name)).toEqual(FAULT_TOOLS);
		expect(firstText(await call(client, 'echo', { text: 'over http' }))).toBe('over http');
		const updates: Progress[] = [];
		await client.callTool({ name: 'slow', arguments: { ms: 350, progress: true } }, undefined, {
			onprogress: (progress) => updates.push(progress),
		});
		expect(updates.map((update) => update.progress)).toEqual([100, 200, 300]);
		const other = await connectStreamable(server.url);
		const first = (await call(client, 'counter')).structuredContent?.count as number;
		expect((await call(other, 'counter')).structuredContent).toEqual({ count: first + 1 });
		expect((await call(other, 'pid')).structuredContent).toEqual({ pid: server.pid });
		const { headers } = (await call(client, 'headers')).structuredContent as {
			headers: Record<string, string>;
		};
		expect(headers['mcp-session-id']).toEqual(expect.any(String));
	});

	it('stops hang on abort over Streamable HTTP', async () => {
		const client = await connectStreamable(server.url);
		const controller = new AbortController();
		const pending = client.callTool({ name: 'hang' }, undefined, { signal: controller.signal });
		setTimeout(() => controller.abort(new Error('aborted over http')), 200);
		await expect(pending).rejects.toThrow('aborted over http');
		await waitFor(() => server.output().includes('hang cancelled'));
	});

	it('serves legacy SSE on the same port', async () => {
		const client = await connectSse(server.sseUrl!);
		expect(firstText(await call(client, 'echo', { text: 'over sse' }))).toBe('over sse');
		expect((await listAllTools(client)).tools).toHaveLength(FAULT_TOOLS.length);
	});

	it('lets a client fall back from Streamable HTTP to SSE', async () => {
		expect((await connectWithFallback(server.url)).via).toBe('streamable');
		const { client, via } = await connectWithFallback(server.sseUrl!);
		expect(via).toBe('sse');
		expect(firstText(await call(client, 'echo', { text: 'fallback' }))).toBe('fallback');
	});

	it('answers 404 on the Streamable HTTP path when SSE only', async () => {
		const legacy = await startHttpServer('fault', { sseOnly: true });
		try {
			await expect(connectStreamable(legacy.url)).rejects.toMatchObject({ code: 404 });
			const { client, via } = await connectWithFallback(legacy.sseUrl!);
			expect(via).toBe('sse');
			expect(firstText(await call(client, 'echo', { text: 'legacy' }))).toBe('legacy');
		} finally {
			await legacy.stop();
		}
	});
});

describe('fault server requiring headers', () => {
	let server: HttpServerHandle;
	beforeAll(async () => {
		server = await startHttpServer('fault', { requireHeaders: AUTH });
	});
	afterAll(() => server.stop());

	it('answers 401 on every path without the headers', async () => {
		const base = new URL(server.url).origin;
		const requests: Array<[string, RequestInit]> = [
			['/mcp', { method: 'POST', body: '{}', headers: { 'Content-Type': 'application/json' } }],
			['/mcp', { method: 'GET' }],
			['/mcp', { method: 'DELETE' }],
			['/sse', { method: 'GET' }],
			['/messages?sessionId=x', { method: 'POST', body: '{}' }],
		];
		for (const [route, init] of requests) {
			expect([route, (await fetch(base + route, init)).status]).toEqual([route, 401]);
			const headers = {
				...(init.headers as Record<string, string>),
				Authorization: AUTH.Authorization,
			};
			const onlyOne = { ...init, headers };
			expect([route, (await fetch(base + route, onlyOne)).status]).toEqual([route, 401]);
		}
		expect((await fetch(`${base}/mcp`, { method: 'GET', headers: AUTH })).status).toBe(400);
	});

	it('rejects Streamable HTTP clients without the headers and serves those that send them', async () => {
		await expect(connectStreamable(server.url)).rejects.toMatchObject({ code: 401 });
		const client = await connectStreamable(server.url, { headers: AUTH });
		const { headers } = (await call(client, 'headers')).structuredContent as {
			headers: Record<string, string>;
		};
		expect(headers).toMatchObject({
			authorization: AUTH.Authorization,
			'x-api-key': AUTH['X-Api-Key'],
		});
	});

	it('checks Streamable HTTP requests after the first one too', async () => {
		let requests = 0;
		const onlyFirst: FetchLike = (url, init) => {
			const headers = new Headers(init?.headers);
			if (++requests > 1) headers.delete('authorization');
			return fetch(url, { ...init, headers });
		};
		await expect(
			connectStreamable(server.url, { headers: AUTH, fetch: onlyFirst }),
		).rejects.toMatchObject({
			code: 401,
		});
		expect(requests).toBeGreaterThan(1);
	});

	it('rejects SSE clients without the headers, on the stream and on posted messages', async () => {
		await expect(connectSse(server.sseUrl!)).rejects.toMatchObject({ code: 401 });
		const client = await connectSse(server.sseUrl!, { headers: AUTH });
		expect(firstText(await call(client, 'echo', { text: 'authorised' }))).toBe('authorised');
		const streamOnly: FetchLike = (url, init) => {
			const headers = new Headers(init?.headers);
			if (init?.method === 'POST') headers.delete('x-api-key');
			return fetch(url, { ...init, headers });
		};
		await expect(connectSse(server.sseUrl!, { headers: AUTH, fetch: streamOnly })).rejects.toThrow(
			/HTTP 401/,
		);
	});
});

describe('server-everything', () => {
	it('lists tools and echoes over stdio', async () => {
		const { client } = await connectStdio(everythingStdio());
		const { tools } = await listAllTools(client);
		expect(tools.map((tool) => tool.name)).toContain('echo');
		expect(firstText(await call(client, 'echo', { message: 'hello' }))).toBe('Echo: hello');
	});

	it('lists tools and echoes over Streamable HTTP, and its process ends on stop', async () => {
		const server = await startHttpServer('everything');
		const client = await connectStreamable(server.url);
		const { tools } = await listAllTools(client);
		expect(tools.map((tool) => tool.name)).toContain('echo');
		expect(firstText(await call(client, 'echo', { message: 'http' }))).toBe('Echo: http');
		await client.close();
		expect(listTestServerProcesses().map(({ pid }) => pid)).toContain(server.pid);
		await server.stop();
		expect(isProcessAlive(server.pid)).toBe(false);
	});
});

describe('server-filesystem', () => {
	let folder: string;
	beforeAll(async () => {
		folder = await createTempFolder({ 'notes/hello.txt': 'hello from the test\n' });
	});
	afterAll(() => removeTempFolder(folder));

	it('lists tools and reads a file inside the allowed folder only', async () => {
		const { client } = await connectStdio(filesystemStdio(folder));
		const { tools } = await listAllTools(client);
		expect(tools.map((tool) => tool.name)).toEqual(
			expect.arrayContaining(['read_text_file', 'list_directory']),
		);
		const read = await call(client, 'read_text_file', {
			path: path.join(folder, 'notes', 'hello.txt'),
		});
		expect(firstText(read)).toBe('hello from the test\n');
		const outside = await call(client, 'read_text_file', {
			path: path.join(folder, '..', 'outside.txt'),
		});
		expect(outside.isError).toBe(true);
	});
});
