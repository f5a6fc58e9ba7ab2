import type { IDataObject, INode } from 'n8n-workflow';
import { errorOf, outputOf } from '../support/engine';
import * as mcp from '../support/mcpWorkflow';
import { startOAuthServer, stopOAuthServers, type OAuthServerHandle } from '../support/oauthServer';
import { everythingStdio } from '../support/servers';

mcp.stopServersAfterAll(stopOAuthServers);

// The test server's tool `ask` requests this form and returns the answer it got as its result.
const ASKED =
	'[The tool asked for input: "Who is asking?" (fields: name (required), count, color, confirm).';
const DEFAULTS = { name: 'Ada', count: 3, color: 'green', confirm: true };

let server: OAuthServerHandle;
beforeAll(async () => {
	server = await startOAuthServer(['--no-auth']);
});

const execute = (parameters: IDataObject = {}) =>
	mcp.mcpClientNode('Execute', {
		operation: 'executeToolCalls',
		connectionType: 'http',
		...parameters,
	});

/** Execute Tool Calls on one item calling `tool`; the item's json, its tool message and the server's result. */
async function ask(node: INode, tool = 'ask', item: IDataObject = {}, args: IDataObject = {}) {
	const run = await mcp.runMcpChain([node], {
		credentials: {
			mcpHttpServerApi: mcp.httpCredential(server.mcp, { transport: 'streamableHttp' }),
		},
		inputItems: [{ json: { ...item, toolCalls: [mcp.pendingCall(tool, args)] } }],
	});
	expect(errorOf(run, node.name)).toBeUndefined();
	const { json } = outputOf(run, node.name)[0];
	mcp.expectConversationItem(json);
	const [message] = mcp.toolMessages(json);
	const [result, ...notes] = message.content.split('\n');
	const asked = mcp.conversationOf(json).trace.filter((entry) => entry.step === 'server.request');
	return { json, message, result, notes, asked };
}

describe('MCP Client: when the server asks for input', () => {
	it('declines by default: the call goes on, and the model is told what the tool asked for', async () => {
		const { result, notes, asked } = await ask(execute());
		expect(JSON.parse(result)).toEqual({ action: 'decline' });
		expect(notes).toEqual([`${ASKED} It was declined: the call went on without the input.]`]);
		expect(asked).toEqual([
			expect.objectContaining({
				step: 'server.request',
				node: 'Execute',
				server: 'oauth-server',
				tool: 'ask',
				method: 'elicitation/create',
				action: 'decline',
				tiedBy: 'stream',
				payload: {
					request: expect.objectContaining({ message: 'Who is asking?' }),
					answer: { action: 'decline' },
				},
			}),
		]);
	});

	it('writes the request between the call and its result in the trace', async () => {
		const { json } = await ask(execute());
		expect(mcp.conversationOf(json).trace.map((entry) => entry.step)).toEqual([
			'arguments.validation',
			'tools.call.request',
			'server.request',
			'tools.call.result',
		]);
	});

	it("accepts with the form's defaults", async () => {
		const { result, notes, asked } = await ask(execute({ elicitation: 'defaults' }));
		expect(JSON.parse(result)).toEqual({ action: 'accept', content: DEFAULTS });
		expect(notes).toEqual([`${ASKED} It was given: ${JSON.stringify(DEFAULTS)}.]`]);
		expect(asked[0]).toMatchObject({
			action: 'accept',
			payload: { answer: { content: DEFAULTS } },
		});
	});

	it('answers with an expression over the item and the request ($elicitation)', async () => {
		const node = execute({
			elicitation: 'answer',
			elicitationAnswer:
				'={{ { name: $json.user + " (" + $elicitation.message + ")", count: $elicitation.defaults.count + 1 } }}',
		});
		const { result } = await ask(node, 'ask', { user: 'Grace' });
		expect(JSON.parse(result)).toEqual({
			action: 'accept',
			content: { ...DEFAULTS, name: 'Grace (Who is asking?)', count: 4 },
		});
	});

	it('declines when the answer says so or gives nothing (a failing expression gives nothing in n8n)', async () => {
		for (const answer of ['={{ { action: "decline" } }}', '={{ JSON.parse("not json") }}']) {
			const { result } = await ask(execute({ elicitation: 'answer', elicitationAnswer: answer }));
			expect(JSON.parse(result)).toEqual({ action: 'decline' });
		}
	});

	it('cancels, telling the model why, when the answer is not an object', async () => {
		const { result, notes, asked } = await ask(
			execute({ elicitation: 'answer', elicitationAnswer: '={{ [1, 2] }}' }),
		);
		expect(JSON.parse(result)).toEqual({ action: 'cancel' });
		expect(notes).toEqual([
			`${ASKED} No answer could be made (The answer must be a JSON object: the content to accept with, or {"action": "decline"}), so it was cancelled.]`,
		]);
		expect(asked[0]).toMatchObject({
			action: 'cancel',
			error: expect.stringMatching(/^The answer must be/),
		});
	});

	it.each(['Fill {{ this }} in: "name" }} {', "Pay $$5, type $' or $& here"])(
		"reads the server's text exactly, braces, quotes and dollars included: %s",
		async (message) => {
			const { result } = await ask(
				execute({
					elicitation: 'answer',
					elicitationAnswer: '={{ { name: $elicitation.message } }}',
				}),
				'ask',
				{},
				{ message },
			);
			expect(JSON.parse(result).content.name).toBe(message);
		},
	);

	it('cancels an answer that does not fill in the form, telling the model where it breaks', async () => {
		const { result, notes, asked } = await ask(
			execute({
				elicitation: 'answer',
				elicitationAnswer: '={{ { name: "Ada", count: "four", color: "blue" } }}',
			}),
		);
		expect(JSON.parse(result)).toEqual({ action: 'cancel' });
		expect(asked[0].error).toBe(
			'The answer does not fill in the form the server asked for (count must be integer; color must be one of ["red","green"]); the server was told the request was cancelled',
		);
		expect(notes.join('\n')).toContain('does not fill in the form');
	});

	it('a fixed JSON answer is the content', async () => {
		const { result } = await ask(
			execute({ elicitation: 'answer', elicitationAnswer: '{"name": "Fixed", "count": 1}' }),
		);
		expect(JSON.parse(result)).toEqual({
			action: 'accept',
			content: { ...DEFAULTS, name: 'Fixed', count: 1 },
		});
	});

	it('refuses sampling and tells the model so', async () => {
		const { result, notes, asked } = await ask(execute(), 'sample');
		expect(result).toMatch(/^sampling failed: .*does not offer sampling/);
		expect(notes).toEqual([
			"[The tool asked this client for a model answer (sampling); it was refused: This client does not offer sampling (sampling/createMessage): it declared no sampling capability and asks no model on a server's behalf.]",
		]);
		expect(asked[0]).toMatchObject({ method: 'sampling/createMessage', action: 'refused' });
	});

	it("Call Tool answers too, and keeps the request in its result's trace", async () => {
		const node = mcp.mcpClientNode('Call', {
			operation: 'callTool',
			connectionType: 'http',
			tool: { __rl: true, mode: 'name', value: 'ask' },
			argumentsSource: 'json',
			jsonArguments: '{}',
			elicitation: 'defaults',
		});
		const run = await mcp.runMcpChain([node], {
			credentials: { mcpHttpServerApi: mcp.httpCredential(server.mcp) },
		});
		const json = outputOf(run, 'Call')[0].json as any;
		expect(json.result).toContain(`${ASKED} It was given:`);
		expect(json.trace.map((entry: any) => entry.step)).toEqual([
			'arguments.validation',
			'tools.call.request',
			'server.request',
			'tools.call.result',
		]);
	});

	it("answers server-everything's elicitation over stdio with the defaults", async () => {
		const node = mcp.mcpClientNode('Execute', {
			operation: 'executeToolCalls',
			elicitation: 'defaults',
		});
		const run = await mcp.runMcpChain([node], {
			credentials: { mcpStdioServerApi: mcp.stdioCredential(everythingStdio()) },
			inputItems: [{ json: { toolCalls: [mcp.pendingCall('trigger-elicitation-request')] } }],
		});
		const [message] = mcp.toolMessages(outputOf(run, 'Execute')[0].json);
		expect(message.isError).toBeUndefined();
		const asked = mcp
			.conversationOf(outputOf(run, 'Execute')[0].json)
			.trace.find((entry) => entry.step === 'server.request');
		expect(asked).toMatchObject({
			action: expect.stringMatching(/^(accept|decline)$/),
			tiedBy: 'only-call',
		});
		expect(message.content).toContain('[The tool asked for input:');
	});
});
