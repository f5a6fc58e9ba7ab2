// MCP server for tests, over stdio, written without an SDK so that it can put the keys of its own
// requests in the order other SDKs and serializers do. Its one tool `ask` ({mb}) sends the client
// an elicitation of about `mb` MB, then answers with what the client said back.
// Usage: node key-order-server.mjs --order java|params-first
//   java: jsonrpc, method, id, params (the Java MCP SDK's JSONRPCRequest);
//   params-first: params, method, jsonrpc, id, its id the same as the client's call's (both count
//   from 0), as any serializer that does not keep key order may write it.
import readline from 'node:readline';

const order = process.argv[process.argv.indexOf('--order') + 1];
if (order !== 'java' && order !== 'params-first') throw new Error('--order java|params-first');

const send = (message) => process.stdout.write(`${JSON.stringify(message)}\n`);
const ELICITATION_ID = 'elicit-0';
let pendingCall;

function elicit(callId, mb) {
	const params = {
		mode: 'form',
		message: 'x'.repeat(Math.round(mb * 1024 * 1024)) || 'Your name?',
		requestedSchema: { type: 'object', properties: { name: { type: 'string' } } },
	};
	if (order === 'java')
		process.stdout.write(
			`{"jsonrpc":"2.0","method":"elicitation/create","id":"${ELICITATION_ID}","params":${JSON.stringify(params)}}\n`,
		);
	else send({ params, method: 'elicitation/create', jsonrpc: '2.0', id: callId });
}

const answersElicitation = (message) =>
	!message.method && message.id === (order === 'java' ? ELICITATION_ID : pendingCall);

readline.createInterface({ input: process.stdin }).on('line', (line) => {
	const message = JSON.parse(line);
	if (message.method === 'initialize')
		return send({
			jsonrpc: '2.0',
			id: message.id,
			result: {
				protocolVersion: message.params.protocolVersion,
				capabilities: { tools: {} },
				serverInfo: { name: `key-order-${order}`, version: '1.0.0' },
			},
		});
	if (message.method === 'tools/list')
		return send({
			jsonrpc: '2.0',
			id: message.id,
			result: {
				tools: [
					{
						name: 'ask',
						inputSchema: { type: 'object', properties: { mb: { type: 'number' } } },
					},
				],
			},
		});
	if (message.method === 'tools/call') {
		pendingCall = message.id;
		return elicit(message.id, message.params.arguments.mb ?? 0);
	}
	if (pendingCall !== undefined && answersElicitation(message)) {
		const text = message.error
			? `failed: ${message.error.message}`
			: JSON.stringify(message.result);
		send({
			jsonrpc: '2.0',
			id: pendingCall,
			result: { content: [{ type: 'text', text }], isError: Boolean(message.error) },
		});
		pendingCall = undefined;
	}
});
