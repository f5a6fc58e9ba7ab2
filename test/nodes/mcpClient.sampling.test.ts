import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';
import { errorOf, outputOf } from '../support/engine';
import * as mcp from '../support/mcpWorkflow';
import { standInCredential } from '../support/modelWorkflow';
import { reply } from '../support/standIn';
import { standInForEachTest } from '../support/standInPerTest';
import { everythingStdio, faultStdio, startHttpServer } from '../support/servers';

mcp.stopServersAfterAll();

/** The model that answers the servers' sampling requests: the Chat Completions stand-in. */
const api = standInForEachTest();
const API_KEY = 'sk-test-secret-key';

const ANSWERING = {
	sampling: 'answer',
	samplingProvider: 'openaiChat',
	samplingModel: 'gpt-4o-mini',
};

/** Execute Tool Calls of one call on the server, answering sampling as `parameters` say. */
async function callWithSampling(
	server: 'stdio' | 'http',
	tool: string,
	args: IDataObject,
	parameters: IDataObject = ANSWERING,
	serverCredential?: ICredentialDataDecryptedObject,
) {
	const connectionType = server === 'stdio' ? 'stdio' : 'http';
	const node = mcp.mcpClientNode('Execute', {
		operation: 'executeToolCalls',
		connectionType,
		...parameters,
	});
	node.credentials = {
		...node.credentials,
		openAiCompatibleApi: { id: 'openai', name: 'Model' },
	};
	const run = await mcp.runMcpChain([node], {
		credentials: {
			...(server === 'stdio'
				? { mcpStdioServerApi: mcp.stdioCredential(faultStdio({ sampling: true })) }
				: { mcpHttpServerApi: serverCredential! }),
			...standInCredential(api),
		},
		inputItems: [{ json: { toolCalls: [mcp.pendingCall(tool, args)] } }],
	});
	expect(errorOf(run, 'Execute')).toBeUndefined();
	const { json } = outputOf(run, 'Execute')[0];
	mcp.expectConversationItem(json);
	const [message] = mcp.toolMessages(json);
	const [result, ...notes] = message.content.split('\n');
	const asked = mcp.conversationOf(json).trace.filter((entry) => entry.step === 'server.request');
	return { result: JSON.parse(result) as unknown, notes, asked, run };
}

describe('MCP Client: when the server asks the model (sampling)', () => {
	it("answers with the chosen model, the server's system prompt kept, the max tokens capped", async () => {
		api.script(reply.text('A workflow tool.'));
		const { result, notes, asked } = await callWithSampling(
			'stdio',
			'summarize',
			{ text: 'n8n is a workflow automation tool', maxTokens: 5000 },
			{ ...ANSWERING, samplingOptions: { maxTokens: 300 } },
		);
		expect(result).toEqual({
			role: 'assistant',
			model: 'gpt-4o-mini',
			stopReason: 'endTurn',
			content: { type: 'text', text: 'A workflow tool.' },
		});
		const [request] = api.requests;
		expect(request.body).toMatchObject({
			model: 'gpt-4o-mini',
			max_completion_tokens: 300,
			temperature: 0.2,
			messages: [
				{ role: 'system', content: 'You write one short sentence.' },
				{ role: 'user', content: 'Summarize: n8n is a workflow automation tool' },
			],
		});
		expect(notes).toEqual([
			'[The tool asked this client for a model answer (sampling); gpt-4o-mini answered "A workflow tool.".]',
		]);
		expect(asked).toEqual([
			expect.objectContaining({
				method: 'sampling/createMessage',
				action: 'answered',
				// Over stdio a request is tied to the only call running.
				tiedBy: 'only-call',
				usage: expect.objectContaining({ total_tokens: 30 }),
				payload: {
					request: expect.objectContaining({ systemPrompt: 'You write one short sentence.' }),
					answer: expect.objectContaining({ model: 'gpt-4o-mini' }),
				},
			}),
		]);
	});

	it("lets the server's model hint pick only a model the node allows, and leaves its system prompt out when told", async () => {
		api.script(reply.text('one'), reply.text('two'));
		const allowed = {
			...ANSWERING,
			samplingOptions: { modelChoices: 'gpt-4o, gpt-4.1-nano', useSystemPrompt: false },
		};
		await callWithSampling('stdio', 'summarize', { text: 'x', hint: 'nano' }, allowed);
		await callWithSampling('stdio', 'summarize', { text: 'x', hint: 'claude' }, allowed);
		expect(api.requests.map((request) => (request.body as { model: string }).model)).toEqual([
			'gpt-4.1-nano',
			'gpt-4o-mini',
		]);
		expect((api.requests[0].body as { messages: unknown[] }).messages).toEqual([
			{ role: 'user', content: 'Summarize: x' },
		]);
	});

	it('declines by default without declaring sampling, as before, and asks no model', async () => {
		const { result } = await callWithSampling('stdio', 'summarize', { text: 'x' }, {});
		expect(result).toMatchObject({ failed: expect.stringMatching(/does not offer sampling/) });
		expect(api.requests).toHaveLength(0);
	});

	it('refuses requests past Requests per Call, telling the server and the trace why', async () => {
		api.script(reply.text('first'), reply.text('second'));
		const { result, asked } = await callWithSampling(
			'stdio',
			'sample_times',
			{ count: 3 },
			{ ...ANSWERING, samplingOptions: { maxRequests: 2 } },
		);
		expect((result as Array<{ failed?: string; code?: number }>)[2]).toEqual({
			failed: expect.stringContaining('more than 2 model answers during one call'),
			code: -1,
		});
		expect(asked.map((entry) => entry.action)).toEqual(['answered', 'answered', 'refused']);
		expect(api.requests).toHaveLength(2);
	});

	it('refuses a request that offers tools the node does not allow, naming them', async () => {
		const { result, asked } = await callWithSampling('stdio', 'sample_with_tools', {});
		expect((result as Array<{ failed: string }>)[0].failed).toMatch(
			/offers the model tools this node does not allow: lookup \(Tools the Server May Offer\)/,
		);
		expect(asked[0]).toMatchObject({ action: 'refused' });
		expect(api.requests).toHaveLength(0);
	});

	it('passes allowed tools to the model, its calls back as tool_use and their results in', async () => {
		api.script(
			reply.toolCalls([{ name: 'lookup', arguments: '{"word":"n8n"}' }]),
			reply.text('n8n means nodemation.'),
		);
		const { result } = await callWithSampling(
			'stdio',
			'sample_with_tools',
			{},
			{
				...ANSWERING,
				samplingTools: 'lookup',
			},
		);
		const [first, second] = result as Array<{ stopReason: string; content: unknown }>;
		expect(first.stopReason).toBe('toolUse');
		expect(first.content).toEqual([
			{ type: 'tool_use', id: expect.any(String), name: 'lookup', input: { word: 'n8n' } },
		]);
		expect(second).toMatchObject({ content: { type: 'text', text: 'n8n means nodemation.' } });
		const messages = (api.requests[1].body as { messages: Array<{ role: string }> }).messages;
		expect(messages.map((message) => message.role)).toEqual(['user', 'assistant', 'tool']);
		expect(api.requests[0].body).toMatchObject({ tools: [{ function: { name: 'lookup' } }] });
	});

	it('refuses content it cannot pass to a model (an image), and the model API key never shows', async () => {
		const { result, run } = await callWithSampling('stdio', 'sample_image', {});
		expect((result as { failed: string }).failed).toMatch(
			/holds image content, which this client passes to no model/,
		);
		expect(JSON.stringify(run.nodes)).not.toContain(API_KEY);
	});

	it('answers over Streamable HTTP too, and redacts the key a model answer repeats', async () => {
		const server = await startHttpServer('fault', { sampling: true });
		api.script(reply.text(`my key is ${API_KEY}`));
		const { result, asked, run } = await callWithSampling(
			'http',
			'summarize',
			{ text: 'x' },
			ANSWERING,
			{
				...mcp.httpCredential(server.url, { transport: 'streamableHttp' }),
			},
		);
		expect(result).toMatchObject({ model: 'gpt-4o-mini' });
		expect(asked[0]).toMatchObject({ action: 'answered', tiedBy: 'stream' });
		expect(JSON.stringify(run.nodes)).not.toContain(API_KEY);
		await server.stop();
	});

	it("answers server-everything's sampling tool, which it offers only to a client that declares sampling", async () => {
		api.script(reply.text('Hello from the model.'));
		const node = (name: string, parameters: IDataObject) => {
			const built = mcp.mcpClientNode(name, {
				connectionType: 'stdio',
				...ANSWERING,
				...parameters,
			});
			built.credentials = {
				...built.credentials,
				openAiCompatibleApi: { id: 'openai', name: 'Model' },
			};
			return built;
		};
		const run = await mcp.runMcpChain(
			[
				node('List Tools', {
					operation: 'listTools',
					toolFilter: 'only',
					includeTools: ['trigger-sampling-request'],
				}),
				node('Execute', { operation: 'executeToolCalls' }),
			],
			{
				credentials: {
					mcpStdioServerApi: mcp.stdioCredential(everythingStdio()),
					...standInCredential(api),
				},
				inputItems: [
					{
						json: {
							toolCalls: [mcp.pendingCall('trigger-sampling-request', { prompt: 'Say hello' })],
						},
					},
				],
			},
		);
		expect(errorOf(run, 'Execute')).toBeUndefined();
		const listed = mcp
			.conversationOf(outputOf(run, 'List Tools')[0].json)
			.tools.map((tool) => tool.name);
		expect(listed).toContain('trigger-sampling-request');
		const [message] = mcp.toolMessages(outputOf(run, 'Execute')[0].json);
		expect(message.content).toContain('Hello from the model.');
		expect(api.requests[0].body).toMatchObject({
			messages: [
				{ role: 'system', content: 'You are a helpful test server.' },
				{ role: 'user', content: expect.stringContaining('Say hello') },
			],
		});
	});
});
