import type { IDataObject } from 'n8n-workflow';
import { sharedPool } from '../../lib/mcp';
import { reply } from '../support/chatCompletionsStandIn';
import { errorOf, outputOf, runWorkflow } from '../support/engine';
import { chain, expectConversationItem } from '../support/mcpWorkflow';
import { modelNode, modelNodeTypes, standInCredential } from '../support/modelWorkflow';
import { standInForEachTest } from '../support/standInPerTest';

const api = standInForEachTest({ expectScriptUsed: true });
afterAll(() => sharedPool.closeAll());

const addTool = {
	name: 'add',
	server: 'everything',
	mcpName: 'add',
	description: 'Adds two numbers',
	inputSchema: {
		type: 'object',
		properties: { a: { type: 'number' }, b: { type: 'number' } },
		required: ['a', 'b'],
	},
};

async function runModel(
	parameters: IDataObject,
	inputItems: Array<{ json: any }> = [{ json: {} }],
	extra = {},
	credential = {},
) {
	const run = await runWorkflow(chain(modelNode('Model', parameters, extra)), {
		nodeTypes: modelNodeTypes(),
		credentials: standInCredential(api, credential),
		inputItems,
	});
	return {
		run,
		toolCalls: run.nodes.Model ? outputOf(run, 'Model', 0) : [],
		answers: run.nodes.Model ? outputOf(run, 'Model', 1) : [],
	};
}

describe('Tool Calling Model', () => {
	it('starts a conversation from its fields (with expressions) and leaves by Tool Calls with parsed calls', async () => {
		api.script(reply.toolCalls([{ id: 'call_a', name: 'add', arguments: '{"a":2,"b":3}' }]));
		const { toolCalls, answers } = await runModel(
			{ systemMessage: 'Use the tools.', userMessage: '={{ "What is " + $json.question + "?" }}' },
			[{ json: { question: '2 + 3', tools: [addTool] } }],
		);
		expect(answers).toHaveLength(0);
		expect(toolCalls).toHaveLength(1);
		const json = toolCalls[0].json as any;
		expectConversationItem(json);
		expect(json.messages).toEqual([
			{ role: 'system', content: 'Use the tools.' },
			{ role: 'user', content: 'What is 2 + 3?' },
			{
				role: 'assistant',
				content: null,
				tool_calls: [
					{ id: 'call_a', type: 'function', function: { name: 'add', arguments: '{"a":2,"b":3}' } },
				],
			},
		]);
		expect(json.toolCalls).toEqual([
			{ id: 'call_a', name: 'add', arguments: { a: 2, b: 3 }, rawArguments: '{"a":2,"b":3}' },
		]);
		expect(json.rounds).toBe(1);
		expect(json.question).toBe('2 + 3');

		const [request] = api.requests;
		expect(request.body).toEqual({
			model: 'gpt-4o-mini',
			stream: false,
			messages: [
				{ role: 'system', content: 'Use the tools.' },
				{ role: 'user', content: 'What is 2 + 3?' },
			],
			tools: [
				{
					type: 'function',
					function: {
						name: 'add',
						description: 'Adds two numbers',
						parameters: addTool.inputSchema,
					},
				},
			],
			tool_choice: 'auto',
		});
		expect(request.headers.authorization).toBe('Bearer sk-test-secret-key');
	});

	it('names the package in User-Agent, unless the credential sets one', async () => {
		api.script(reply.text('One.'), reply.text('Two.'));
		await runModel({ userMessage: 'hi' }, [{ json: {} }]);
		await runModel(
			{ userMessage: 'hi' },
			[{ json: {} }],
			{},
			{ headers: { header: [{ name: 'User-Agent', value: 'gateway-client/2' }] } },
		);
		expect(api.requests[0].headers['user-agent']).toMatch(
			/^n8n-nodes-tool-calling\/\d+\.\d+\.\d+$/,
		);
		expect(api.requests[1].headers['user-agent']).toBe('gateway-client/2');
	});

	it('records request and response in the trace with the key and auth headers redacted', async () => {
		api.script(reply.text('Five.'));
		const { answers } = await runModel(
			{ userMessage: 'hi' },
			[{ json: {} }],
			{},
			{ headers: { header: [{ name: 'X-Gateway-Key', value: 'gw-secret-123' }] } },
		);
		const json = answers[0].json as any;
		expect(json.trace).toHaveLength(2);
		const [request, response] = json.trace;
		expect(request).toMatchObject({
			step: 'model.request',
			node: 'Model',
			round: 1,
			at: expect.any(String),
			dialect: 'openaiChat',
			method: 'POST',
			url: `${api.baseURL}/chat/completions`,
			bytes: expect.any(Number),
		});
		// Header names as the transport sent them: lower-cased.
		expect(request.headers.authorization).toBe('[redacted]');
		expect(request.headers['x-gateway-key']).toBe('[redacted]');
		// The body as sent, under payload.
		expect(request.payload).toEqual(api.requests[0].body);
		expect(request.payload.messages).toEqual([{ role: 'user', content: 'hi' }]);
		expect(request.bytes).toBe(Buffer.byteLength(JSON.stringify(request.payload)));
		expect(request).not.toHaveProperty('body');
		expect(response).toMatchObject({
			step: 'model.response',
			node: 'Model',
			round: 1,
			dialect: 'openaiChat',
			durationMs: expect.any(Number),
			finishReason: 'stop',
			attempts: [{ status: 200 }],
			usage: { total_tokens: 30 },
			toolCalls: [],
			bytes: expect.any(Number),
		});
		expect(response.payload.choices[0].message.content).toBe('Five.');
		expect(response).not.toHaveProperty('body');
		expect(api.requests[0].headers['x-gateway-key']).toBe('gw-secret-123');
		const output = JSON.stringify(json);
		expect(output).not.toContain('sk-test-secret-key');
		expect(output).not.toContain('gw-secret-123');
	});

	it('leaves by Final Answer with the text in `answer`', async () => {
		api.script(reply.text('It is 5.'));
		const { toolCalls, answers } = await runModel({ userMessage: 'What is 2 + 3?' });
		expect(toolCalls).toHaveLength(0);
		const json = answers[0].json as any;
		expectConversationItem(json);
		expect(json.answer).toBe('It is 5.');
		expect(json.toolCalls).toEqual([]);
		expect(json.messages.at(-1)).toEqual({ role: 'assistant', content: 'It is 5.' });
	});

	it('maps tool names the vendor refuses and maps them back, node tools included', async () => {
		api.script(
			reply.toolCalls([
				{ id: 'c1', name: 'math_mul', arguments: '{"a":2,"b":4}' },
				{ id: 'c2', name: 'lookup', arguments: '{"q":"x"}' },
			]),
		);
		const mul = { ...addTool, name: 'math.mul', mcpName: 'math.mul' };
		const nodeTools = JSON.stringify([
			{
				type: 'function',
				function: {
					name: 'lookup',
					description: 'Looks up',
					parameters: { type: 'object', properties: { q: { type: 'string' } } },
				},
			},
		]);
		const { toolCalls } = await runModel({ userMessage: 'go', nodeTools }, [
			{ json: { tools: [mul] } },
		]);
		expect(api.requests[0].body!.tools!.map((tool: any) => tool.function.name)).toEqual([
			'math_mul',
			'lookup',
		]);
		const json = toolCalls[0].json as any;
		expect(json.toolCalls.map((call: any) => call.name)).toEqual(['math.mul', 'lookup']);
		expect(json.messages.at(-1).tool_calls.map((call: any) => call.function.name)).toEqual([
			'math.mul',
			'lookup',
		]);
		expect(json.tools.map((tool: any) => tool.name)).toEqual(['math.mul', 'lookup']);
	});

	it('keeps invalid argument JSON raw and flagged instead of failing', async () => {
		api.script(reply.toolCalls([{ id: 'c1', name: 'add', arguments: '{"a": 2, "b": }' }]));
		const { toolCalls } = await runModel({ userMessage: 'go' }, [{ json: { tools: [addTool] } }]);
		const [call] = (toolCalls[0].json as any).toolCalls;
		expect(call).toMatchObject({
			id: 'c1',
			name: 'add',
			arguments: null,
			rawArguments: '{"a": 2, "b": }',
		});
		expect(call.argumentsError).toMatch(/not valid JSON/);
	});

	it('gives equal items streamed and not streamed, assembling fragmented tool-call deltas', async () => {
		const turn = reply.toolCalls(
			[
				{ id: 'c1', name: 'add', arguments: '{"a":2,"b":3}' },
				{ id: 'c2', name: 'add', arguments: '{"a":"ten \\"quoted\\"","b":1}' },
			],
			{ content: 'Let me add.' },
		);
		api.script(turn, turn);
		const plain = await runModel({ userMessage: 'go' }, [{ json: { tools: [addTool] } }]);
		const streamed = await runModel({ userMessage: 'go', options: { stream: true } }, [
			{ json: { tools: [addTool] } },
		]);
		const withoutTrace = ({ trace, ...rest }: any) => rest;
		expect(withoutTrace(streamed.toolCalls[0].json)).toEqual(withoutTrace(plain.toolCalls[0].json));
		expect((streamed.toolCalls[0].json as any).toolCalls[1].arguments).toEqual({
			a: 'ten "quoted"',
			b: 1,
		});
		expect(api.requests[1].body).toMatchObject({
			stream: true,
			stream_options: { include_usage: true },
		});
		const response = (streamed.toolCalls[0].json as any).trace[1];
		expect(response.streamedChunks).toBeGreaterThan(10);
		expect(response.usage).toEqual((plain.toolCalls[0].json as any).trace[1].usage);
	});

	it('retries 429 and 5xx, waiting as Retry-After says, and shows each attempt', async () => {
		api.script(reply.rateLimited(0), reply.error(500), reply.text('done'));
		const { answers } = await runModel({ userMessage: 'go', options: { maxRetries: 2 } });
		expect(api.requests).toHaveLength(3);
		expect(
			(answers[0].json as any).trace[1].attempts.map((a: any) => [a.status, a.retryAfter]),
		).toEqual([
			[429, '0'],
			[500, undefined],
			[200, undefined],
		]);
	});

	it('stops retrying at the limit and raises the vendor’s message', async () => {
		api.script(
			reply.error(503, 'Overloaded, try later'),
			reply.error(503, 'Overloaded, try later'),
		);
		const { run } = await runModel({ userMessage: 'go', options: { maxRetries: 1 } });
		const error = errorOf(run, 'Model') as any;
		expect(error.message).toBe('Overloaded, try later');
		expect(error.httpCode).toBe('503');
	});

	it('raises other API errors at once, or keeps the conversation under continue-on-fail', async () => {
		api.script(
			reply.error(400, {
				message: "Invalid schema for function 'add': 'object' is not valid",
				param: 'tools[0]',
			}),
		);
		const { run } = await runModel({ userMessage: 'go' }, [{ json: { tools: [addTool] } }]);
		expect(errorOf(run, 'Model')?.message).toBe(
			"Invalid schema for function 'add': 'object' is not valid",
		);
		expect(api.requests).toHaveLength(1);

		// A failed item leaves by Final Answer: by Tool Calls it would loop back to the model without end.
		api.script(reply.error(401), reply.text('second item fine'));
		const kept = await runModel(
			{ userMessage: 'go', options: { concurrency: 1 } },
			[{ json: { id: 1 } }, { json: { id: 2, error: 'an earlier turn failed' } }],
			{ onError: 'continueRegularOutput' },
		);
		expect(kept.toolCalls).toEqual([]);
		expect(
			kept.answers.map((item) => [
				item.json.id,
				String(item.json.error ?? 'none').slice(0, 24),
				item.json.answer,
			]),
		).toEqual([
			[1, 'Incorrect API key provid', undefined],
			[2, 'none', 'second item fine'],
		]);
		expect(JSON.stringify(kept.answers)).not.toContain('sk-test-secret-key');
	});

	it('hides secret keys (also inside the arguments text) and the Redact Paths in the trace, while the conversation keeps them', async () => {
		api.script(
			reply.toolCalls([
				{ id: 'c1', name: 'add', arguments: '{"a":2,"b":3,"password":"hunter22"}' },
			]),
		);
		const { toolCalls } = await runModel(
			{
				userMessage: 'my ssn is 123-45-6789',
				traceOptions: { redactPaths: 'payload.messages.*.content' },
			},
			[{ json: { tools: [addTool] } }],
		);
		const json = toolCalls[0].json as any;
		const [request, response] = json.trace;
		expect(request.payload.messages).toEqual([{ role: 'user', content: '[redacted]' }]);
		expect(
			JSON.parse(response.payload.choices[0].message.tool_calls[0].function.arguments),
		).toEqual({ a: 2, b: 3, password: '[redacted]' });
		expect(JSON.stringify(json.trace)).not.toMatch(/hunter22|123-45-6789/);
		// The next round and the tool need them as they were.
		expect(json.messages[0].content).toBe('my ssn is 123-45-6789');
		expect(json.toolCalls[0].arguments).toEqual({ a: 2, b: 3, password: 'hunter22' });
	});

	it('reads Trace and Redaction options given by expressions for each item', async () => {
		api.script(reply.text('one'), reply.text('two'));
		const { answers } = await runModel(
			{
				userMessage: 'my ssn is 123-45-6789',
				traceOptions: { payloads: '={{ $json.payloads }}', redactPaths: '={{ $json.hide }}' },
				options: { concurrency: 1 },
			},
			[
				{ json: { payloads: 'metadata', hide: '' } },
				{ json: { payloads: 'full', hide: 'payload.messages.*.content' } },
			],
		);
		const [metadataOnly, full] = answers.map((item) => (item.json as any).trace[0]);
		expect(metadataOnly.payload).toBeUndefined();
		expect(metadataOnly.bytes).toBeGreaterThan(0);
		expect(full.payload.messages).toEqual([{ role: 'user', content: '[redacted]' }]);
	});

	it('reads a whole JSON answer when a server ignores stream, and a JSON error body in its own words', async () => {
		const completion = {
			id: 'chatcmpl-1',
			object: 'chat.completion',
			created: 1,
			model: 'gpt-4o-mini',
			choices: [
				{
					index: 0,
					message: { role: 'assistant', content: 'Not streamed.' },
					finish_reason: 'stop',
				},
			],
		};
		api.script(
			reply.raw(200, JSON.stringify(completion), { 'content-type': 'application/json' }),
			reply.raw(
				200,
				JSON.stringify({ error: { message: 'The gateway refused: quota exceeded' } }),
				{ 'content-type': 'application/json' },
			),
		);
		const { answers } = await runModel({ userMessage: 'go', options: { stream: true } });
		expect(answers[0].json).toMatchObject({ answer: 'Not streamed.' });
		const { run } = await runModel({ userMessage: 'go', options: { stream: true } });
		expect(errorOf(run, 'Model')?.message).toBe('The gateway refused: quota exceeded');
	});

	it('fails clearly on a stream cut in the middle', async () => {
		api.script(
			reply.cutStream(3, reply.toolCalls([{ id: 'c1', name: 'add', arguments: '{"a":2,"b":3}' }])),
		);
		const { run } = await runModel(
			{ userMessage: 'go', options: { stream: true, maxRetries: 0 } },
			[{ json: { tools: [addTool] } }],
		);
		expect(errorOf(run, 'Model')?.message).toMatch(
			/^The stream broke off \(.+\) after \d+ chunks, before the model finished its turn$/,
		);
	});

	it('sends tool choice, parallel calls, temperature and token limit as set', async () => {
		api.script(
			reply.toolCalls([{ id: 'c1', name: 'add', arguments: '{"a":1,"b":1}' }]),
			reply.toolCalls([{ id: 'c2', name: 'add', arguments: '{}' }]),
		);
		await runModel(
			{
				userMessage: 'go',
				toolChoice: 'named',
				toolName: 'add',
				options: { parallelToolCalls: false, temperature: 0.2, maxTokens: 50 },
			},
			[{ json: { tools: [addTool] } }],
		);
		await runModel({ userMessage: 'go', toolChoice: 'required' }, [{ json: { tools: [addTool] } }]);
		expect(api.requests[0].body).toMatchObject({
			tool_choice: { type: 'function', function: { name: 'add' } },
			parallel_tool_calls: false,
			temperature: 0.2,
			max_completion_tokens: 50,
		});
		expect(api.requests[1].body!.tool_choice).toBe('required');
	});

	it('puts the token limit in max_tokens for servers that read only that field', async () => {
		api.script(reply.text('short'));
		await runModel({ userMessage: 'go', options: { maxTokens: 64, maxTokensField: 'max_tokens' } });
		expect(api.requests[0].body).toMatchObject({ max_tokens: 64 });
		expect(api.requests[0].body).not.toHaveProperty('max_completion_tokens');
	});

	it('refuses a named tool choice that is not among the tools, before calling the API', async () => {
		const { run } = await runModel({ userMessage: 'go', toolChoice: 'named', toolName: 'nope' }, [
			{ json: { tools: [addTool] } },
		]);
		expect(errorOf(run, 'Model')?.message).toBe(
			"Tool Choice names 'nope', which is not among the tools",
		);
		expect(api.requests).toHaveLength(0);
	});

	it('refuses more tools than Chat Completions takes, naming the limit, before calling the API', async () => {
		const tools = Array.from({ length: 129 }, (_, i) => ({ ...addTool, name: `add_${i}` }));
		const { run } = await runModel({ userMessage: 'go' }, [{ json: { tools } }]);
		expect(errorOf(run, 'Model')?.message).toMatch(
			/^Chat Completions takes at most 128 tools .* this conversation has 129\./,
		);
		expect(api.requests).toHaveLength(0);
	});

	it('sends strict schemas, names the tools that cannot be strict, and drops the nulls strict mode adds', async () => {
		const search = {
			name: 'search',
			inputSchema: {
				type: 'object',
				properties: { q: { type: 'string' }, limit: { type: 'integer' } },
				required: ['q'],
			},
		};
		const loose = {
			name: 'loose',
			inputSchema: {
				type: 'object',
				properties: { v: { oneOf: [{ type: 'string' }, { type: 'number' }] } },
			},
		};
		api.script(
			reply.toolCalls([{ id: 'c1', name: 'search', arguments: '{"q":"mcp","limit":null}' }]),
		);
		const { toolCalls } = await runModel({ userMessage: 'go', options: { strict: true } }, [
			{ json: { tools: [search, loose] } },
		]);
		const [sentSearch, sentLoose] = api.requests[0].body!.tools as any[];
		expect(sentSearch.function).toMatchObject({
			strict: true,
			parameters: {
				additionalProperties: false,
				required: ['q', 'limit'],
				properties: { limit: { type: ['integer', 'null'] } },
			},
		});
		expect(sentLoose.function.strict).toBeUndefined();
		const json = toolCalls[0].json as any;
		expect(json.trace[0].notStrict).toEqual([
			{ name: 'loose', reason: expect.stringContaining('oneOf') },
		]);
		expect(json.toolCalls[0]).toMatchObject({
			arguments: { q: 'mcp' },
			rawArguments: '{"q":"mcp","limit":null}',
		});
	});

	it('stops the loop at Max Rounds without calling the API', async () => {
		const { answers } = await runModel({ userMessage: 'go', options: { maxRounds: 3 } }, [
			{ json: { rounds: 3, messages: [{ role: 'user', content: 'go' }] } },
		]);
		expect(answers[0].json).toMatchObject({
			rounds: 3,
			stopReason: 'Stopped before round 4: Max Rounds is 3',
		});
		expect(api.requests).toHaveLength(0);
	});

	it('stops at Max Rounds without the answer and error of an earlier question, and drops the stop once a turn is taken', async () => {
		const asked = {
			messages: [
				{ role: 'user', content: 'q1' },
				{ role: 'assistant', content: 'answer to q1' },
				{ role: 'user', content: 'q2' },
			],
			rounds: 2,
			answer: 'answer to q1',
			error: 'an earlier turn failed',
		};
		const stopped = await runModel({ options: { maxRounds: 2 } }, [{ json: asked }]);
		expect(stopped.answers[0].json.stopReason).toBe('Stopped before round 3: Max Rounds is 2');
		expect(stopped.answers[0].json).not.toHaveProperty('answer');
		expect(stopped.answers[0].json).not.toHaveProperty('error');
		api.script(reply.text('answer to q2'));
		const raised = await runModel({ options: { maxRounds: 5 } }, [stopped.answers[0]]);
		expect(raised.answers[0].json.answer).toBe('answer to q2');
		expect(raised.answers[0].json).not.toHaveProperty('stopReason');
	});

	it('sends a message expression that gives a number as its text, and refuses one that gives an object', async () => {
		api.script(reply.text('ok'));
		await runModel({ systemMessage: '={{ $json.n }}', userMessage: '={{ $json.n + 1 }}' }, [
			{ json: { n: 41 } },
		]);
		expect(api.requests[0].body!.messages).toEqual([
			{ role: 'system', content: '41' },
			{ role: 'user', content: '42' },
		]);
		const missing = await runModel({ userMessage: '={{ $json.missing }}' });
		expect(errorOf(missing.run, 'Model')?.message).toContain('the User Message is empty');
		const object = await runModel({ userMessage: '={{ $json }}' }, [{ json: { q: 'hi' } }]);
		expect(errorOf(object.run, 'Model')?.message).toBe(
			'The User Message is not text but an object: make its expression give text (JSON.stringify() writes an object as text)',
		);
	});

	it('fails only the item whose Trace and Redaction options cannot be read, under On Error: Continue', async () => {
		api.script(reply.text('one'), reply.text('three'));
		const { run, answers } = await runModel(
			{
				userMessage: '={{ $json.q }}',
				options: { concurrency: 1 },
				traceOptions: {
					redactPaths: "={{ $json.paths ?? $('No Such Node').item.json.paths }}",
				},
			},
			[
				{ json: { q: 'a', paths: 'payload.model' } },
				{ json: { q: 'b' } },
				{ json: { q: 'c', paths: 'payload.model' } },
			],
			{ onError: 'continueRegularOutput' },
		);
		expect(run.status).toBe('success');
		expect(answers.map((item) => [item.json.q, item.json.answer, item.pairedItem])).toEqual([
			['a', 'one', { item: 0 }],
			['b', undefined, { item: 1 }],
			['c', 'three', { item: 2 }],
		]);
		expect(answers[1].json.error).toBe("Referenced node doesn't exist");
	});

	it('refuses to take a turn while tool calls are pending', async () => {
		const item = {
			messages: [{ role: 'user', content: 'go' }],
			toolCalls: [{ id: 'c', name: 'add', arguments: {}, rawArguments: '{}' }],
		};
		const { run } = await runModel({ userMessage: 'go' }, [{ json: item }]);
		expect(errorOf(run, 'Model')?.message).toBe('1 tool calls are still pending (add)');
		// The executor the calls wait for is named by its server's label.
		const listed = {
			...item,
			tools: [{ name: 'add', inputSchema: { type: 'object' }, server: 'calc' }],
		};
		const named = await runModel({ userMessage: 'go' }, [{ json: listed }]);
		expect(errorOf(named.run, 'Model')?.description).toContain("these wait for 'calc'");
	});

	it('refuses an item without a conversation and without a user message', async () => {
		const { run } = await runModel({ userMessage: '' });
		expect(errorOf(run, 'Model')?.message).toContain('the User Message is empty');
	});

	it('sends no Authorization header when the credential has no key (local servers)', async () => {
		api.script(reply.text('local'));
		await runModel({ userMessage: 'go' }, [{ json: {} }], {}, { apiKey: '' });
		expect(api.requests[0].headers.authorization).toBeUndefined();
	});

	it('keeps its connections to the model API open across items and executions', async () => {
		const turns = ['a', 'b', 'c', 'd', 'e', 'f'];
		api.script(...turns.map((text) => reply.text(text)));
		await runModel(
			{ userMessage: '={{ $json.q }}', options: { concurrency: 1 } },
			turns.slice(0, 5).map((q) => ({ json: { q } })),
		);
		const opened = api.connections();
		expect(opened).toBeLessThan(5);
		const { answers } = await runModel({ userMessage: 'f' });
		expect(answers[0].json.answer).toBe('f');
		expect(api.requests).toHaveLength(6);
		expect(api.connections()).toBe(opened);
	});

	it('runs several items as independent conversations, in order', async () => {
		api.script(reply.text('one'), reply.text('two'), reply.text('three'));
		const { answers } = await runModel(
			{ userMessage: '={{ $json.q }}', options: { concurrency: 1 } },
			[{ json: { q: 'a' } }, { json: { q: 'b' } }, { json: { q: 'c' } }],
		);
		expect(answers.map((item) => [item.json.q, item.json.answer, item.pairedItem])).toEqual([
			['a', 'one', { item: 0 }],
			['b', 'two', { item: 1 }],
			['c', 'three', { item: 2 }],
		]);
		expect(api.requests.map((request) => (request.body!.messages[0] as any).content)).toEqual([
			'a',
			'b',
			'c',
		]);
	});
});
