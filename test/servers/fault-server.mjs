// MCP server for tests: well-behaved tools next to tools that fail in every way a client must survive.
// Usage: node fault-server.mjs [--http PORT [--sse-only] [--require-header "Name: value"]...]
//        [--name NAME] [--server-version V] [--tools-prefix P] [--hostile] [--invalid-tools] [--mute]
//        [--failing-list] [--resumable] [--sampling]
// --hostile adds the tools of a server that attacks its client (see `hostileTools`);
// --invalid-tools lists tools whose definitions break the MCP schema next to the valid ones;
// --mute starts a process that never answers anything, not even `initialize`;
// --failing-list answers tools/list with a -32000 error that quotes $CANARY_SECRET;
// --resumable keeps every event of its Streamable HTTP streams so that a client can resume them
//   (priming events, Last-Event-ID), and adds `answer_later`, which closes its stream before answering;
// --sampling adds tools that ask the client's model (see samplingTools.mjs).
import { createServer as createHttpServer } from 'node:http';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import {
	CallToolRequestSchema,
	CreateMessageResultSchema,
	ElicitResultSchema,
	ErrorCode,
	ListToolsRequestSchema,
	McpError,
} from '@modelcontextprotocol/sdk/types.js';
import Ajv2020 from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { InMemoryEventStore } from '@modelcontextprotocol/sdk/examples/shared/inMemoryEventStore.js';
import { commandLine, fatal } from './commandLine.mjs';
import { jsonRpcError, mcpSessions, reply } from './sessions.mjs';
import { samplingTools } from './samplingTools.mjs';

const options = parseArgs(process.argv.slice(2));
const PNG_1X1 =
	'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';
let counter = 0;

function parseArgs(argv) {
	const values = commandLine(argv, {
		http: { type: 'string' },
		'sse-only': { type: 'boolean', default: false },
		'require-header': { type: 'string', multiple: true, default: [] },
		name: { type: 'string', default: 'fault-server' },
		'server-version': { type: 'string', default: '1.0.0' },
		'tools-prefix': { type: 'string', default: '' },
		hostile: { type: 'boolean', default: false },
		'invalid-tools': { type: 'boolean', default: false },
		mute: { type: 'boolean', default: false },
		'failing-list': { type: 'boolean', default: false },
		resumable: { type: 'boolean', default: false },
		sampling: { type: 'boolean', default: false },
	});
	const http = values.http === undefined ? undefined : Number(values.http);
	if (http !== undefined && !(Number.isInteger(http) && http > 0))
		fatal('--http wants a port number');
	return {
		http,
		sseOnly: values['sse-only'],
		requiredHeaders: values['require-header'].map((raw) => {
			const colon = raw.indexOf(':');
			if (colon < 1) fatal(`--require-header wants "Name: value", got ${raw}`);
			return { name: raw.slice(0, colon).trim().toLowerCase(), value: raw.slice(colon + 1).trim() };
		}),
		name: values.name,
		version: values['server-version'],
		prefix: values['tools-prefix'],
		hostile: values.hostile,
		invalidTools: values['invalid-tools'],
		mute: values.mute,
		failingList: values['failing-list'],
		resumable: values.resumable,
		sampling: values.sampling,
	};
}

// Smallest valid WAV: 8 samples of 8-bit silence, so audio content decodes as a real file.
function tinyWav() {
	const samples = Buffer.alloc(8, 0x80);
	const header = Buffer.alloc(44);
	header.write('RIFF', 0, 'ascii');
	header.writeUInt32LE(36 + samples.length, 4);
	header.write('WAVEfmt ', 8, 'ascii');
	header.writeUInt32LE(16, 16);
	header.writeUInt16LE(1, 20);
	header.writeUInt16LE(1, 22);
	header.writeUInt32LE(8000, 24);
	header.writeUInt32LE(8000, 28);
	header.writeUInt16LE(1, 32);
	header.writeUInt16LE(8, 34);
	header.write('data', 36, 'ascii');
	header.writeUInt32LE(samples.length, 40);
	return Buffer.concat([header, samples]).toString('base64');
}

const noArgs = { type: 'object', properties: {}, additionalProperties: false };
const numberPair = {
	type: 'object',
	properties: {
		a: { type: 'number', description: 'First operand' },
		b: { type: 'number', description: 'Second operand' },
	},
	required: ['a', 'b'],
	additionalProperties: false,
};
const text = (value) => ({ content: [{ type: 'text', text: String(value) }] });
const sleep = (ms, signal) =>
	new Promise((resolve, reject) => {
		const timer = setTimeout(resolve, ms);
		signal.addEventListener(
			'abort',
			() => {
				clearTimeout(timer);
				reject(new Error('cancelled'));
			},
			{ once: true },
		);
	});

const tools = [
	{
		name: 'echo',
		title: 'Echo',
		description: 'Returns the given text unchanged.',
		inputSchema: {
			type: 'object',
			properties: { text: { type: 'string', description: 'Text to send back' } },
			required: ['text'],
			additionalProperties: false,
		},
		annotations: { readOnlyHint: true, idempotentHint: true },
		run: ({ text: value }) => text(value),
	},
	{
		name: 'add',
		description: 'Adds two numbers; the sum also comes as structured content.',
		inputSchema: numberPair,
		outputSchema: {
			type: 'object',
			properties: { sum: { type: 'number' } },
			required: ['sum'],
			additionalProperties: false,
		},
		run: ({ a, b }) => ({ ...text(a + b), structuredContent: { sum: a + b } }),
	},
	{
		// A dot is legal in MCP tool names but not in OpenAI function names.
		name: 'math.mul',
		description: 'Multiplies two numbers.',
		inputSchema: numberPair,
		run: ({ a, b }) => text(a * b),
	},
	{
		name: 'submit_order',
		description: 'Accepts a nested order and returns the arguments exactly as received.',
		inputSchema: {
			$schema: 'https://json-schema.org/draft/2020-12/schema',
			type: 'object',
			properties: {
				customer: {
					type: 'object',
					properties: {
						name: { type: 'string', minLength: 1 },
						email: { type: 'string', format: 'email' },
					},
					required: ['name'],
					additionalProperties: false,
				},
				items: {
					type: 'array',
					minItems: 1,
					items: {
						type: 'object',
						properties: {
							sku: { type: 'string', pattern: '^[A-Z]{3}-[0-9]{3}$' },
							quantity: { type: 'integer', minimum: 1 },
						},
						required: ['sku', 'quantity'],
						additionalProperties: false,
					},
				},
				priority: { type: 'string', enum: ['low', 'normal', 'high'], default: 'normal' },
				note: { type: ['string', 'null'] },
			},
			required: ['customer', 'items'],
			additionalProperties: false,
		},
		run: (args) => ({
			content: [{ type: 'text', text: JSON.stringify(args) }],
			structuredContent: { received: args },
		}),
	},
	{
		name: 'slow',
		description:
			'Waits the given milliseconds; reports progress after every 100 ms when asked to and given a progress token.',
		inputSchema: {
			type: 'object',
			properties: {
				ms: { type: 'integer', minimum: 0, maximum: 600000 },
				progress: { type: 'boolean', default: false },
			},
			required: ['ms'],
			additionalProperties: false,
		},
		run: async ({ ms, progress }, extra, request) => {
			const token = request.params._meta?.progressToken;
			// Steps of 100 ms, a notification after each but the last: the count does not depend on timer drift under load.
			for (let waited = 0; waited < ms;) {
				const step = Math.min(100, ms - waited);
				await sleep(step, extra.signal);
				waited += step;
				if (progress && token !== undefined && waited < ms) {
					await extra
						.sendNotification({
							method: 'notifications/progress',
							params: {
								progressToken: token,
								progress: waited,
								total: ms,
								message: `${waited} of ${ms} ms`,
							},
						})
						.catch(() => {});
				}
			}
			return text(`waited ${ms} ms`);
		},
	},
	{
		name: 'hang',
		description: 'Never answers; stops when the call is cancelled.',
		inputSchema: noArgs,
		run: (_args, extra) =>
			new Promise((_resolve, reject) => {
				extra.signal.addEventListener(
					'abort',
					() => {
						// Tests read this on stderr to see the cancellation reached the server.
						console.error('fault-server: hang cancelled');
						reject(new Error('cancelled'));
					},
					{ once: true },
				);
			}),
	},
	{
		name: 'crash',
		description: 'Kills the server process (exit code 1) without answering.',
		inputSchema: noArgs,
		run: () => {
			console.error('fault-server: crashing on purpose');
			process.exit(1);
		},
	},
	{
		name: 'fail',
		description: 'Answers with a tool error (isError: true).',
		inputSchema: noArgs,
		run: () => ({
			isError: true,
			content: [{ type: 'text', text: 'The tool failed on purpose.' }],
		}),
	},
	{
		name: 'env_file',
		description:
			'Tells its environment: as text, and as a text file (an embedded resource), both with every variable and value.',
		inputSchema: noArgs,
		run: () => {
			const listing = Object.entries(process.env)
				.map(([name, value]) => `${name}=${value}`)
				.join('\n');
			return {
				content: [
					{ type: 'text', text: listing },
					{
						type: 'resource',
						resource: {
							uri: 'fault://env.txt',
							mimeType: 'text/plain',
							blob: Buffer.from(listing).toString('base64'),
						},
					},
				],
			};
		},
	},
	{
		name: 'throws',
		description: 'Answers with a JSON-RPC error instead of a result.',
		inputSchema: noArgs,
		run: () => {
			throw new McpError(ErrorCode.InvalidParams, 'throws: rejected on purpose');
		},
	},
	{
		name: 'bad_output',
		description: 'Returns structured content that breaks its own output schema.',
		inputSchema: noArgs,
		outputSchema: {
			type: 'object',
			properties: { count: { type: 'integer' } },
			required: ['count'],
			additionalProperties: false,
		},
		run: () => ({ ...text('count is "many"'), structuredContent: { count: 'many' } }),
	},
	{
		name: 'garbage',
		description:
			'Writes lines that are not JSON-RPC to stdout (stdio only), then answers normally.',
		inputSchema: noArgs,
		run: () => {
			if (options.http === undefined) {
				process.stdout.write(
					[
						'this line is not JSON',
						'{"jsonrpc": "2.0", broken',
						'{"valid":"json","but":"not JSON-RPC"}',
						'42',
						'\u001b[33mwarning: coloured log line\u001b[0m',
						'',
					].join('\n') + '\n',
				);
			}
			return text('answer after garbage');
		},
	},
	{
		name: 'image',
		description:
			'Returns one content block of every kind: image, audio, embedded resource, resource link and text.',
		inputSchema: noArgs,
		run: () => ({
			content: [
				{ type: 'image', data: PNG_1X1, mimeType: 'image/png' },
				{ type: 'audio', data: tinyWav(), mimeType: 'audio/wav' },
				{
					type: 'resource',
					resource: {
						uri: 'fault://files/blob.bin',
						mimeType: 'application/octet-stream',
						blob: Buffer.from([0, 1, 2, 3, 254, 255]).toString('base64'),
					},
				},
				{
					type: 'resource_link',
					uri: 'fault://files/readme.txt',
					name: 'readme.txt',
					description: 'A file the client may fetch',
					mimeType: 'text/plain',
				},
				{ type: 'text', text: 'one of every content type' },
			],
		}),
	},
	{
		name: 'counter',
		description: 'Counts calls in this server process.',
		inputSchema: noArgs,
		outputSchema: {
			type: 'object',
			properties: { count: { type: 'integer' } },
			required: ['count'],
		},
		run: () => {
			counter++;
			return { ...text(counter), structuredContent: { count: counter } };
		},
	},
	{
		name: 'pid',
		description: 'Returns the process id of this server.',
		inputSchema: noArgs,
		outputSchema: {
			type: 'object',
			properties: { pid: { type: 'integer' } },
			required: ['pid'],
		},
		run: () => ({ ...text(process.pid), structuredContent: { pid: process.pid } }),
	},
	{
		name: 'headers',
		description: 'Returns the HTTP request headers that carried this call (empty over stdio).',
		inputSchema: noArgs,
		run: (_args, extra) => {
			const headers = extra.requestInfo?.headers ?? {};
			return { ...text(JSON.stringify(headers)), structuredContent: { headers } };
		},
	},
];

const anyArgs = { type: 'object' };
/** The arguments of each tools/call as the client sent them, by request id: `received` answers with them. */
const rawArguments = new Map();

/** Keeps each tools/call's arguments as they arrived, before the SDK's schemas rebuild them. */
function keepRawArguments(transport) {
	const deliver = transport.onmessage;
	transport.onmessage = (message, extra) => {
		if (message.method === 'tools/call' && message.params?.name === `${options.prefix}received`)
			rawArguments.set(message.id, JSON.stringify(message.params.arguments ?? {}));
		deliver?.(message, extra);
	};
}
const secretOf = (variable) => process.env[variable ?? 'CANARY_SECRET'] ?? '';

/**
 * A secret in every form a careless server passes one on: raw, base64 at each byte alignment,
 * base64url, URL-encoded, hex, JSON-escaped, split across two text parts, inside binary data of
 * several types, in structured content and in _meta.
 */
function leakEverywhere(secret) {
	const bytes = Buffer.from(secret);
	const b64 = (prefix) =>
		Buffer.concat([Buffer.from(prefix), bytes, Buffer.from('!')]).toString('base64');
	const escaped = [...secret]
		.map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`)
		.join('');
	const half = Math.floor(secret.length / 2);
	const png = Buffer.concat([
		Buffer.from(PNG_1X1, 'base64'),
		Buffer.from(`tEXtComment\0${secret}`),
	]);
	const blob = (uri, mimeType, data) => ({
		type: 'resource',
		resource: { uri, mimeType, blob: Buffer.from(data).toString('base64') },
	});
	return {
		content: [
			{ type: 'text', text: `raw ${secret}` },
			{
				type: 'text',
				text: `base64 ${b64('')} ${b64('a')} ${b64('ab')} url ${bytes.toString('base64url')}`,
			},
			{
				type: 'text',
				text: `url ${encodeURIComponent(secret)} hex ${bytes.toString('hex')} json ${escaped}`,
			},
			{ type: 'text', text: `split ${secret.slice(0, half)}` },
			{ type: 'text', text: `${secret.slice(half)} across parts` },
			{ type: 'image', data: png.toString('base64'), mimeType: 'image/png' },
			blob(
				'fault://leak.bin',
				'application/octet-stream',
				Buffer.concat([Buffer.from([0, 1, 2]), bytes]),
			),
			blob('fault://leak.csv', 'application/csv', `name,value\nkey,${secret}\n`),
			blob(
				'fault://leak.json',
				'application/json',
				JSON.stringify({ b64: bytes.toString('base64') }),
			),
			{
				type: 'resource',
				resource: { uri: 'fault://leak.txt', mimeType: 'text/plain', text: secret },
			},
			{
				type: 'resource_link',
				uri: `fault://files?key=${encodeURIComponent(secret)}`,
				name: `${secret}.txt`,
			},
		],
		structuredContent: { secret, nested: [{ base64: bytes.toString('base64') }] },
		_meta: { echoed: secret },
	};
}

const hostileTools = [
	{
		name: 'progress_forever',
		description: 'Never answers, but reports progress every interval_ms until cancelled.',
		inputSchema: { type: 'object', properties: { interval_ms: { type: 'integer', minimum: 1 } } },
		run: ({ interval_ms: interval = 20 }, extra, request) =>
			new Promise((_resolve, reject) => {
				const token = request.params._meta?.progressToken;
				let progress = 0;
				const timer = setInterval(() => {
					if (token === undefined) return;
					extra
						.sendNotification({
							method: 'notifications/progress',
							params: { progressToken: token, progress: ++progress },
						})
						.catch(() => {});
				}, interval);
				extra.signal.addEventListener('abort', () => {
					clearInterval(timer);
					console.error('fault-server: progress_forever cancelled');
					reject(new Error('cancelled'));
				});
			}),
	},
	{
		name: 'close_stdout',
		description: 'Closes its stdout and keeps running, deaf to the end of stdin (stdio only).',
		inputSchema: noArgs,
		run: () =>
			new Promise(() => {
				process.stdin.removeAllListeners('end');
				process.stdout.removeAllListeners('error');
				process.stdout.on('error', () => {});
				process.stdout.end();
				setInterval(() => {}, 60_000);
				console.error('fault-server: stdout closed, still running');
			}),
	},
	{
		name: 'ignore_sigterm',
		description: 'From now on takes SIGTERM (and SIGINT) without ending.',
		inputSchema: noArgs,
		run: () => {
			for (const signal of ['SIGTERM', 'SIGINT']) {
				process.removeAllListeners(signal);
				process.on(signal, () => console.error(`fault-server: ${signal} ignored`));
			}
			return text('ignoring SIGTERM');
		},
	},
	{
		name: 'freeze',
		description: 'Stops its own process (SIGSTOP): it answers nothing, not even a ping.',
		inputSchema: noArgs,
		run: () => {
			console.error(`fault-server: freezing ${process.pid}`);
			process.kill(process.pid, 'SIGSTOP');
			return text('thawed');
		},
	},
	{
		name: 'flood',
		description: 'Sends count log notifications as fast as it can, then answers with their count.',
		inputSchema: {
			type: 'object',
			properties: { count: { type: 'integer', minimum: 0 } },
			required: ['count'],
		},
		run: async ({ count }, extra) => {
			let sent = 0;
			while (sent < count) {
				const batch = Array.from({ length: Math.min(500, count - sent) }, () =>
					extra.sendNotification({
						method: 'notifications/message',
						params: {
							level: 'info',
							logger: 'flood',
							data: `message ${++sent} ${'x'.repeat(200)}`,
						},
					}),
				);
				await Promise.all(batch).catch(() => {});
			}
			return text(`flooded ${sent}`);
		},
	},
	{
		name: 'huge',
		description: 'Returns a text result of the given size in MB.',
		inputSchema: {
			type: 'object',
			properties: { mb: { type: 'number', minimum: 0 } },
			required: ['mb'],
		},
		run: ({ mb }) => text('x'.repeat(Math.round(mb * 1024 * 1024))),
	},
	{
		name: 'ask_huge',
		description:
			'Asks the client for input (elicitation), or with sampling for a model answer, in a request of about mb MB; answers with what it got, or fails saying how the request failed.',
		inputSchema: {
			type: 'object',
			properties: { mb: { type: 'number', minimum: 0 }, sampling: { type: 'boolean' } },
			required: ['mb'],
		},
		run: async ({ mb, sampling = false }, extra) => {
			const words = 'x'.repeat(Math.round(mb * 1024 * 1024));
			const request = sampling
				? {
						method: 'sampling/createMessage',
						params: {
							messages: [{ role: 'user', content: { type: 'text', text: words } }],
							maxTokens: 10,
						},
					}
				: {
						method: 'elicitation/create',
						params: {
							mode: 'form',
							message: words,
							requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
						},
					};
			const schema = sampling ? CreateMessageResultSchema : ElicitResultSchema;
			try {
				return text(JSON.stringify(await extra.sendRequest(request, schema)));
			} catch (error) {
				return {
					isError: true,
					content: [
						{ type: 'text', text: `The ${request.method} request failed: ${error.message}` },
					],
				};
			}
		},
	},
	{
		name: 'notify_huge',
		description:
			'Sends a log notification of about mb MB, whose data ends with an id of its own, then answers.',
		inputSchema: {
			type: 'object',
			properties: { mb: { type: 'number', minimum: 0 } },
			required: ['mb'],
		},
		run: async ({ mb }, extra) => {
			await extra.sendNotification({
				method: 'notifications/message',
				params: { level: 'info', data: { text: 'x'.repeat(Math.round(mb * 1024 * 1024)), id: 0 } },
			});
			return text('notified');
		},
	},
	{
		name: 'deep',
		description: 'Returns structured content nested depth levels deep.',
		inputSchema: {
			type: 'object',
			properties: { depth: { type: 'integer', minimum: 0 } },
			required: ['depth'],
		},
		run: ({ depth }) => {
			let nested = 'bottom';
			for (let level = 0; level < depth; level++) nested = { inner: nested };
			return { ...text(`nested ${depth} deep`), structuredContent: { nested } };
		},
	},
	{
		name: 'server_error',
		description:
			'Answers with a JSON-RPC error of the given code (default -32000, "server error").',
		inputSchema: {
			type: 'object',
			properties: { code: { type: 'integer' }, message: { type: 'string' } },
		},
		run: ({ code = -32000, message = 'Internal server error' }) => {
			throw new McpError(code, message);
		},
	},
	{
		name: 'leak',
		description:
			'Passes on the value of an environment variable (default CANARY_SECRET): as a result in every form, as a JSON-RPC error, or on stderr just before crashing.',
		inputSchema: {
			type: 'object',
			properties: { variable: { type: 'string' }, as: { enum: ['result', 'error', 'stderr'] } },
		},
		run: ({ variable, as = 'result' }) => {
			const secret = secretOf(variable);
			if (as === 'error') throw new McpError(-32000, `Upstream refused the key ${secret}`);
			if (as === 'stderr') {
				// The secret ends up across the point where a 2,000-character tail would cut.
				process.stderr.write(`key ${secret}${'.'.repeat(2000 - Math.floor(secret.length / 2))}\n`);
				setTimeout(() => process.exit(1), 50);
				return new Promise(() => {});
			}
			return leakEverywhere(secret);
		},
	},
	{
		name: 'received',
		description:
			'Accepts any arguments and returns them as they arrived on the wire, before any parsing of the SDK.',
		inputSchema: anyArgs,
		run: (_args, extra) => {
			const raw = rawArguments.get(extra.requestId) ?? '';
			rawArguments.delete(extra.requestId);
			return text(raw);
		},
	},
];
if (options.hostile) tools.push(...hostileTools);
if (options.sampling) tools.push(...samplingTools);
if (options.resumable)
	tools.push({
		name: 'answer_later',
		description:
			'Closes its response stream (the client resumes it, as MCP 2025-11-25 allows), then answers after ms.',
		inputSchema: {
			type: 'object',
			properties: { ms: { type: 'integer', minimum: 0, maximum: 60000 } },
			required: ['ms'],
		},
		run: async ({ ms }, extra) => {
			extra.closeSSEStream?.();
			await sleep(ms, extra.signal);
			return text(`answered after ${ms} ms`);
		},
	});

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
const byName = new Map(
	tools.map((tool) => [
		options.prefix + tool.name,
		{ ...tool, validate: ajv.compile(tool.inputSchema) },
	]),
);
const listed = tools.map(
	({ name, title, description, inputSchema, outputSchema, annotations }) => ({
		name: options.prefix + name,
		title,
		description,
		inputSchema,
		outputSchema,
		annotations,
	}),
);
// Definitions the MCP schema refuses: a client that rejects the whole list loses the valid tools too.
if (options.invalidTools) {
	listed.splice(
		1,
		0,
		{
			name: 'string_schema',
			description: 'Its inputSchema is not an object schema.',
			inputSchema: { type: 'string' },
		},
		{ name: 'no_schema', description: 'It has no inputSchema at all.' },
		{ description: 'It has no name.', inputSchema: noArgs },
	);
}

// Cursors are opaque to clients; here they only carry the offset of the next page.
const encodeCursor = (offset) => Buffer.from(JSON.stringify({ offset })).toString('base64url');
function decodeCursor(cursor) {
	try {
		const { offset } = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
		if (Number.isInteger(offset) && offset >= 0 && offset < listed.length) return offset;
	} catch {
		// Not one of ours: answered as invalid below.
	}
	throw new McpError(ErrorCode.InvalidParams, `Invalid cursor: ${cursor}`);
}

// tools/list pages by PAGE_SIZE, so clients must follow the cursor.
const PAGE_SIZE = 3;

function createMcpServer() {
	const server = new Server(
		{ name: options.name, version: options.version },
		{ capabilities: { tools: { listChanged: false }, logging: {} } },
	);
	server.setRequestHandler(ListToolsRequestSchema, (request) => {
		if (options.failingList)
			throw new McpError(-32000, `Listing refused: key ${secretOf()} is not allowed`);
		const cursor = request.params?.cursor;
		const offset = cursor === undefined ? 0 : decodeCursor(cursor);
		const next = offset + PAGE_SIZE;
		return {
			tools: listed.slice(offset, next),
			...(next < listed.length ? { nextCursor: encodeCursor(next) } : {}),
		};
	});
	server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
		const tool = byName.get(request.params.name);
		if (!tool) throw new McpError(ErrorCode.InvalidParams, `Tool ${request.params.name} not found`);
		const args = request.params.arguments ?? {};
		// Bad arguments are a tool error the model can correct, as the SDK's McpServer reports them.
		if (!tool.validate(args)) {
			return {
				isError: true,
				content: [
					{
						type: 'text',
						text: `Invalid arguments for tool ${request.params.name}: ${ajv.errorsText(tool.validate.errors)}`,
					},
				],
			};
		}
		return tool.run(args, extra, request);
	});
	return server;
}

async function serveStdio() {
	const transport = new StdioServerTransport();
	await createMcpServer().connect(transport);
	keepRawArguments(transport);
	process.stdin.on('end', () => process.exit(0));
	// The client went away; there is nobody left to answer.
	process.stdout.on('error', () => process.exit(0));
}

function readJson(req) {
	return new Promise((resolve, reject) => {
		const chunks = [];
		req.on('data', (chunk) => chunks.push(chunk));
		req.on('end', () => {
			try {
				resolve(JSON.parse(Buffer.concat(chunks).toString('utf8')));
			} catch (error) {
				reject(error);
			}
		});
		req.on('error', reject);
	});
}

function serveHttp(port) {
	const sessions = mcpSessions(
		async (transport) => {
			await createMcpServer().connect(transport);
			keepRawArguments(transport);
		},
		(sessionId) => console.error(`fault-server: session ${sessionId} ended`),
		options.resumable ? { eventStore: new InMemoryEventStore(), retryInterval: 100 } : {},
	);

	async function route(req, res) {
		const url = new URL(req.url, 'http://127.0.0.1');
		for (const { name, value } of options.requiredHeaders) {
			if (req.headers[name] !== value) {
				return reply(res, 401, {
					error: 'unauthorized',
					message: `Missing or wrong ${name} header`,
				});
			}
		}
		if (url.pathname === '/mcp' && !options.sseOnly)
			return sessions.streamable(req, res, undefined, () => readJson(req));
		if (url.pathname === '/sse') {
			// A POST here is a client probing for Streamable HTTP; 405 sends it to the SSE fallback.
			if (req.method !== 'GET')
				return reply(res, 405, jsonRpcError('Method not allowed'), { Allow: 'GET' });
			return sessions.sseStream(res);
		}
		if (url.pathname === '/messages' && req.method === 'POST')
			return sessions.sseMessage(url.searchParams.get('sessionId') ?? '', req, res);
		reply(res, 404, { error: 'not found' });
	}

	const httpServer = createHttpServer((req, res) => {
		route(req, res).catch((error) => {
			console.error('fault-server:', error);
			if (!res.headersSent) reply(res, 500, jsonRpcError('Internal server error'));
		});
	});
	httpServer.listen(port, '127.0.0.1', () => {
		console.error(`fault-server listening on http://127.0.0.1:${port}`);
	});
	httpServer.on('error', (error) => fatal(error.message));
}

for (const signal of ['SIGTERM', 'SIGINT'])
	process.on(signal, () => {
		// Tests read this on stderr to see which signal reached the server.
		console.error(`fault-server: ${signal}`);
		process.exit(0);
	});

if (options.mute) setInterval(() => {}, 60_000);
else if (options.http === undefined) await serveStdio();
else serveHttp(options.http);
