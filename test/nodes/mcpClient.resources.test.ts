import type { IDataObject, INode } from 'n8n-workflow';
import type { ResourceContent } from '../../lib/execution/resources';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import {
	getPromptArgumentFields,
	searchPrompts,
	searchResources,
} from '../../nodes/McpClient/methods';
import { reply } from '../support/chatCompletionsStandIn';
import { editorContextFor, errorOf, nodeTypesFrom, outputOf } from '../support/engine';
import * as mcp from '../support/mcpWorkflow';
import { modelNode, modelNodeTypes, standInCredential } from '../support/modelWorkflow';
import { startOAuthServer, stopOAuthServers, type OAuthServerHandle } from '../support/oauthServer';
import { everythingStdio } from '../support/servers';
import { standInForEachTest } from '../support/standInPerTest';

const api = standInForEachTest();
mcp.stopServersAfterAll(stopOAuthServers);

const everything = { mcpStdioServerApi: mcp.stdioCredential(everythingStdio()) };
const node = (name: string, parameters: IDataObject) => mcp.mcpClientNode(name, parameters);
const byUri = (value: string) => ({ __rl: true, mode: 'uri', value });
const fromList = (value: string) => ({ __rl: true, mode: 'list', value });
const promptForm = (value: IDataObject) => ({ mappingMode: 'defineBelow', value });
const stepsOf = (json: IDataObject) => mcp.conversationOf(json).trace.map((entry) => entry.step);
const lastEntry = (json: IDataObject) => mcp.conversationOf(json).trace.at(-1)!;

async function runOne(nodes: INode[], credentials: Record<string, any> = everything) {
	const run = await mcp.runMcpChain(nodes, { credentials });
	const last = nodes.at(-1)!.name;
	expect(errorOf(run, last)).toBeUndefined();
	const [item] = outputOf(run, last);
	mcp.expectConversationItem(item.json);
	return { run, item };
}

describe('MCP Client: resources and prompts of server-everything', () => {
	it('lists resources, resource templates and prompts into the item, each with its trace entry', async () => {
		const { item } = await runOne([
			node('Resources', { operation: 'listResources' }),
			node('Templates', { operation: 'listResourceTemplates' }),
			node('Prompts', { operation: 'listPrompts', serverLabel: 'demo' }),
		]);
		const json = item.json as any;
		expect(json.resources.map((resource: any) => resource.uri)).toContain(
			'demo://resource/static/document/features.md',
		);
		expect(json.resourceTemplates.map((template: any) => template.uriTemplate)).toEqual([
			'demo://resource/dynamic/text/{resourceId}',
			'demo://resource/dynamic/blob/{resourceId}',
		]);
		expect(json.prompts.map((prompt: any) => prompt.name)).toEqual([
			'simple-prompt',
			'args-prompt',
			'completable-prompt',
			'resource-prompt',
		]);
		expect(stepsOf(item.json)).toEqual([
			'resources.list',
			'resources.templates.list',
			'prompts.list',
		]);
		expect(lastEntry(item.json)).toMatchObject({
			node: 'Prompts',
			round: 0,
			server: 'demo',
			count: 4,
			payload: json.prompts,
		});
	});

	it('reads a text resource into the JSON and a blob into binary data, the trace naming the binary', async () => {
		const { item } = await runOne([
			node('Text', {
				operation: 'readResource',
				resource: byUri('demo://resource/dynamic/text/2'),
			}),
			node('Blob', {
				operation: 'readResource',
				resource: byUri('demo://resource/dynamic/blob/1'),
			}),
		]);
		const resource = (item.json as any).resource as { uri: string; contents: ResourceContent[] };
		expect(resource.uri).toBe('demo://resource/dynamic/blob/1');
		const [blob] = resource.contents;
		expect(blob).toEqual({
			uri: 'demo://resource/dynamic/blob/1',
			mimeType: 'text/plain',
			binaryProperty: 'resource',
			bytes: expect.any(Number),
		});
		const binary = item.binary!.resource;
		expect(Buffer.from(binary.data, 'base64').toString()).toMatch(
			/^Resource 1: This is a base64 blob/,
		);
		const [text, read] = mcp.conversationOf(item.json).trace;
		expect(text).toMatchObject({
			step: 'resources.read',
			node: 'Text',
			uri: 'demo://resource/dynamic/text/2',
			contentCount: 1,
			payload: {
				contents: [{ text: expect.stringMatching(/^Resource 2: This is a plaintext resource/) }],
			},
		});
		expect(read.payload).toEqual({
			contents: [
				{
					uri: 'demo://resource/dynamic/blob/1',
					mimeType: 'text/plain',
					blob: { binaryProperty: 'resource', bytes: blob.bytes },
				},
			],
		});
	});

	it("follows a tool's resource link: after Call Tool and after Execute Tool Calls", async () => {
		const links = node('Links', {
			operation: 'callTool',
			tool: fromList('get-resource-links'),
			argumentsSource: 'json',
			jsonArguments: '{"count": 2}',
		});
		const readLink = node('Read Link', {
			operation: 'readResource',
			resource: byUri('={{ $json.resourceLinks[1].uri }}'),
		});
		const run = await mcp.runMcpChain([links, readLink], { credentials: everything });
		const called = outputOf(run, 'Links')[0].json as any;
		expect(called.resourceLinks).toEqual([
			expect.objectContaining({ uri: 'demo://resource/dynamic/blob/1', name: 'Blob Resource 1' }),
			expect.objectContaining({ uri: 'demo://resource/dynamic/text/2', name: 'Text Resource 2' }),
		]);
		expect((outputOf(run, 'Read Link')[0].json as any).resource.contents[0].text).toMatch(
			/^Resource 2: This is a plaintext resource/,
		);

		const executed = await mcp.runMcpChain(
			[
				node('Execute', { operation: 'executeToolCalls' }),
				node('Read', {
					operation: 'readResource',
					resource: byUri('={{ $json.messages.at(-1).resourceLinks[0].uri }}'),
				}),
			],
			{
				credentials: everything,
				inputItems: [
					{ json: { toolCalls: [mcp.pendingCall('get-resource-links', { count: 1 })] } },
				],
			},
		);
		const message = mcp
			.conversationOf(outputOf(executed, 'Execute')[0].json)
			.messages.at(-1) as any;
		expect(message.content).toContain(
			'[resource link: Blob Resource 1 demo://resource/dynamic/blob/1]',
		);
		expect((outputOf(executed, 'Read')[0].json as any).resource.uri).toBe(
			'demo://resource/dynamic/blob/1',
		);
	});

	it('gets a prompt with arguments from the form, as messages the Tool Calling Model continues', async () => {
		api.script(reply.text('Sunny.'));
		const prompt = node('Prompt', {
			operation: 'getPrompt',
			prompt: fromList('args-prompt'),
			promptArguments: promptForm({ city: '={{ $json.city }}', state: '' }),
		});
		const run = await mcp.runMcpChain([prompt, modelNode('Model', {})], {
			credentials: { ...everything, ...standInCredential(api) },
			nodeTypes: modelNodeTypes(),
			inputItems: [{ json: { city: 'Paris' } }],
		});
		const prompted = outputOf(run, 'Prompt')[0].json;
		expect(mcp.conversationOf(prompted).messages).toEqual([
			{ role: 'user', content: "What's weather in Paris?" },
		]);
		expect(lastEntry(prompted)).toMatchObject({
			step: 'prompts.get',
			prompt: 'args-prompt',
			messageCount: 1,
		});
		expect((lastEntry(prompted).payload as any).arguments).toEqual({ city: 'Paris' });
		expect(api.requests[0].body!.messages).toEqual([
			{ role: 'user', content: "What's weather in Paris?" },
		]);
		expect((outputOf(run, 'Model', 1)[0].json as any).answer).toBe('Sunny.');
	});

	it('puts an embedded resource of a prompt into the message text', async () => {
		const { item } = await runOne([
			node('Prompt', {
				operation: 'getPrompt',
				prompt: fromList('resource-prompt'),
				promptArguments: promptForm({ resourceType: 'Text', resourceId: '3' }),
			}),
		]);
		const [intro, embedded] = mcp.conversationOf(item.json).messages;
		expect(intro.content).toMatch(/includes the Text resource with id: 3/);
		expect(embedded.content).toMatch(
			/^\[resource demo:\/\/resource\/dynamic\/text\/3\]\nResource 3: This is a plaintext resource/,
		);
	});

	it('refuses a prompt whose required argument is empty, naming it', async () => {
		const run = await mcp.runMcpChain(
			[
				node('Prompt', {
					operation: 'getPrompt',
					prompt: fromList('args-prompt'),
					promptArguments: promptForm({ city: '', state: 'Texas' }),
				}),
			],
			{ credentials: everything },
		);
		expect(errorOf(run, 'Prompt')?.message).toBe("Prompt 'args-prompt' needs the argument city");
	});

	it('offers resources and prompts to pick, and builds the prompt form from its arguments', async () => {
		const editor = (parameters: IDataObject) =>
			editorContextFor(node('Editor', parameters), nodeTypesFrom(new McpClient()), everything);
		const resources = await searchResources.call(
			await editor({ operation: 'readResource' }),
			'FEATURES',
		);
		expect(resources.results).toEqual([
			{
				name: 'features.md',
				value: 'demo://resource/static/document/features.md',
				description: 'Static document file exposed from /docs: features.md',
			},
		]);
		const prompts = await searchPrompts.call(await editor({ operation: 'getPrompt' }), 'argu');
		expect(prompts.results.map((result) => result.value)).toEqual(['args-prompt']);
		const form = await getPromptArgumentFields.call(
			await editor({ operation: 'getPrompt', prompt: fromList('args-prompt') }),
		);
		const common = { type: 'string', defaultMatch: false, display: true };
		expect(form.fields).toEqual([
			{ id: 'city', displayName: 'city', required: true, ...common },
			{ id: 'state', displayName: 'state', required: false, ...common },
		]);
	});
});

describe('MCP Client: resources and prompts, paging and errors', () => {
	let server: OAuthServerHandle;
	beforeAll(async () => {
		server = await startOAuthServer(['--no-auth']);
	});
	const paged = () => ({ mcpHttpServerApi: mcp.httpCredential(server.mcp) });
	const httpNode = (name: string, parameters: IDataObject) =>
		mcp.mcpClientNode(name, { connectionType: 'http', ...parameters });

	it('lists every page, once per execution for all items', async () => {
		const before = await server.stats();
		const run = await mcp.runMcpChain(
			[
				httpNode('Resources', { operation: 'listResources' }),
				httpNode('Templates', { operation: 'listResourceTemplates' }),
				httpNode('Prompts', { operation: 'listPrompts' }),
			],
			{ credentials: paged(), inputItems: [{ json: {} }, { json: {} }, { json: {} }] },
		);
		const items = outputOf(run, 'Prompts');
		expect(items).toHaveLength(3);
		for (const { json } of items as any[]) {
			expect(json.resources.map((resource: any) => resource.uri)).toEqual(
				[1, 2, 3, 4, 5].map((n) => `memo://notes/${n}`),
			);
			expect(json.resourceTemplates).toHaveLength(3);
			expect(json.prompts).toHaveLength(3);
		}
		// 3 + 2 + 2 pages, once each, and the session's own requests around them.
		expect((await server.stats()).mcpRequests - before.mcpRequests).toBeLessThan(15);
	});

	it('fails only the item whose resource the server does not have, with its error', async () => {
		const read = httpNode('Read', {
			operation: 'readResource',
			resource: byUri('={{ $json.uri }}'),
		});
		const run = await mcp.runMcpChain([{ ...read, continueOnFail: true }], {
			credentials: paged(),
			inputItems: [{ json: { uri: 'memo://notes/2' } }, { json: { uri: 'memo://notes/99' } }],
		});
		const [found, missing] = outputOf(run, 'Read') as any[];
		expect(found.json.resource.contents[0].text).toBe('contents of memo://notes/2');
		expect(missing.json.error).toMatch(/Resource not found: memo:\/\/notes\/99/);
		// Without continue-on-fail, the node's error names the item, as n8n shows it.
		const failed = await mcp.runMcpChain([read], {
			credentials: paged(),
			inputItems: [{ json: { uri: 'memo://notes/2' } }, { json: { uri: 'memo://notes/99' } }],
		});
		const error = errorOf(failed, 'Read');
		expect(error?.context.itemIndex).toBe(1);
	});

	it('says so when a server offers no resources or prompts', async () => {
		const run = await mcp.runMcpChain([node('Resources', { operation: 'listResources' })], {
			credentials: mcp.faultCredentials(),
		});
		expect(errorOf(run, 'Resources')?.message).toMatch(
			/The server offers no resources \(it declared no resources capability\)/,
		);
	});
});
