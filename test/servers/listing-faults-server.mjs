// MCP server for tests of the resource and prompt operations: raw JSON-RPC over stdio, so that it
// can answer what an SDK server would refuse to send. The answers break in the way --mode names:
//   bad-blob     resources/read of test://bad-blob answers a blob that is not base64
//   no-uri       resources/list answers a resource without its uri
//   deep         resources/list answers a resource whose _meta nests 6,000 levels, and
//                resources/read of test://deep-json answers JSON text nesting as deep
//   many         resources/list pages 120,000 resources, 20,000 a page
//   no-prompts   prompts/list fails with a JSON-RPC error; prompts/get answers
// Usage: node listing-faults-server.mjs [--mode MODE]
import { createInterface } from 'node:readline';
import { commandLine } from './commandLine.mjs';

const { mode = '' } = commandLine(process.argv.slice(2), { mode: { type: 'string' } });
const DEPTH = 6_000;
const nested = (open, close, inner) => open.repeat(DEPTH) + inner + close.repeat(DEPTH);
const PAGE = 20_000;

const resourcesList = (cursor) => {
	if (mode === 'no-uri') return { resources: [{ name: 'no uri here' }] };
	if (mode === 'deep')
		return { resources: [{ uri: 'test://deep', name: 'deep', _meta: '__DEEP__' }] };
	if (mode === 'many') {
		const page = Number(cursor ?? 0);
		const resources = Array.from({ length: PAGE }, (_, index) => ({
			uri: `test://${page}/${index}`,
			name: `r${index}`,
		}));
		return { resources, ...(page < 5 ? { nextCursor: String(page + 1) } : {}) };
	}
	return { resources: [{ uri: 'test://fine', name: 'fine' }] };
};

const resourcesRead = (uri) => {
	if (uri === 'test://bad-blob')
		return { contents: [{ uri, mimeType: 'image/png', blob: 'not*base64!!' }] };
	if (uri === 'test://deep-json')
		return { contents: [{ uri, mimeType: 'application/json', text: nested('[', ']', '') }] };
	return { contents: [{ uri, text: 'plain' }] };
};

const handlers = {
	initialize: () => ({
		protocolVersion: '2025-06-18',
		capabilities: { tools: {}, resources: {}, prompts: {} },
		serverInfo: { name: 'listing-faults', version: '1.0.0' },
	}),
	ping: () => ({}),
	'tools/list': () => ({ tools: [] }),
	'resources/list': (params) => resourcesList(params.cursor),
	'resources/templates/list': () => ({ resourceTemplates: [] }),
	'resources/read': (params) => resourcesRead(params.uri),
	'prompts/list': () => {
		if (mode === 'no-prompts') throw { code: -32000, message: 'prompts cannot be listed' };
		return { prompts: [{ name: 'greet', arguments: [{ name: 'who', required: true }] }] };
	},
	'prompts/get': (params) => ({
		messages: [{ role: 'user', content: { type: 'text', text: `Hello ${params.arguments?.who}` } }],
	}),
};

// The deep _meta is written as text: no JSON.stringify could write it.
const write = (message) =>
	process.stdout.write(
		`${JSON.stringify(message).replace('"__DEEP__"', () => nested('{"a":', '}', '{}'))}\n`,
	);

createInterface({ input: process.stdin }).on('line', (line) => {
	let message;
	try {
		message = JSON.parse(line);
	} catch {
		return;
	}
	if (message.id === undefined) return;
	const handler = handlers[message.method];
	if (!handler)
		return write({
			jsonrpc: '2.0',
			id: message.id,
			error: { code: -32601, message: 'Method not found' },
		});
	try {
		write({ jsonrpc: '2.0', id: message.id, result: handler(message.params ?? {}) });
	} catch (error) {
		write({
			jsonrpc: '2.0',
			id: message.id,
			error: { code: error.code ?? -32603, message: error.message },
		});
	}
});
