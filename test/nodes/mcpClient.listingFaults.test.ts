import type { IDataObject, INode } from 'n8n-workflow';
import path from 'node:path';
import { errorOf, outputOf } from '../support/engine';
import * as mcp from '../support/mcpWorkflow';
import { childEnv, REPO_ROOT } from '../support/servers';

mcp.stopServersAfterAll();

const SERVER = path.join(REPO_ROOT, 'test', 'servers', 'listing-faults-server.mjs');
const serverIn = (mode: string) => ({
	mcpStdioServerApi: mcp.stdioCredential({
		transport: 'stdio',
		command: process.execPath,
		args: [SERVER, '--mode', mode],
		env: childEnv(),
	}),
});
const byUri = (value: string) => ({ __rl: true, mode: 'uri', value });

async function runNode(
	mode: string,
	parameters: IDataObject,
	inputItems = [{ json: {} }],
	extra: Partial<INode> = {},
) {
	const run = await mcp.runMcpChain([mcp.mcpClientNode('MCP', parameters, extra)], {
		credentials: serverIn(mode),
		inputItems,
	});
	return { error: errorOf(run, 'MCP'), items: run.nodes.MCP ? outputOf(run, 'MCP') : [] };
}

describe('MCP Client: resource and prompt answers that break the rules', () => {
	it('fails only the item whose answer breaks the MCP schema, saying where, under continue-on-fail', async () => {
		const { error, items } = await runNode(
			'bad-blob',
			{ operation: 'readResource', resource: byUri('={{ $json.uri }}') },
			[{ json: { uri: 'test://fine' } }, { json: { uri: 'test://bad-blob' } }],
			{ onError: 'continueRegularOutput' },
		);
		expect(error).toBeUndefined();
		expect((items[0].json as any).resource.contents[0].text).toBe('plain');
		expect(String(items[1].json.error)).toMatch(/contents\.0: Invalid input/);
		const listing = await runNode('no-uri', { operation: 'listResources' });
		expect(listing.error?.message).toMatch(/resources\.0\.uri/);
	});

	it('keeps JSON nested too deep to store out of the item: a resource read keeps its text, a listing fails naming it', async () => {
		const read = await runNode('deep', {
			operation: 'readResource',
			resource: byUri('test://deep-json'),
		});
		expect(read.error).toBeUndefined();
		const [content] = (read.items[0].json as any).resource.contents;
		expect(content.json).toBeUndefined();
		expect(content.text.length).toBe(12_000);
		expect(() => JSON.stringify(read.items[0].json)).not.toThrow();
		const listed = await runNode('deep', { operation: 'listResources' });
		expect(listed.error?.message).toContain(
			"An entry of the server's resources/list nests deeper than 1000 levels, more than can be passed on",
		);
	});

	it('stops a listing past 100,000 entries, naming the limit', async () => {
		const { error } = await runNode('many', { operation: 'listResources' });
		expect(error?.message).toContain(
			"The server's resources/list lists more than 100000 entries, more than can be passed on",
		);
	});

	it('asks for a prompt even when the server cannot list its prompts', async () => {
		const { error, items } = await runNode('no-prompts', {
			operation: 'getPrompt',
			prompt: byUri('greet'),
			promptArguments: { mappingMode: 'defineBelow', value: { who: 'Ada' } },
		});
		expect(error).toBeUndefined();
		expect(mcp.conversationOf(items[0].json).messages.at(-1)).toMatchObject({
			role: 'user',
			content: 'Hello Ada',
		});
	});
});
