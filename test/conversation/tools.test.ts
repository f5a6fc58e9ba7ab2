import { readConversation } from '../../lib/conversation/read';
import { filterTools, mergeServerTools } from '../../lib/conversation/tools';

const tool = (name: string, extra: Record<string, unknown> = {}) => ({
	name,
	inputSchema: { type: 'object' as const },
	...extra,
});

describe('mergeServerTools', () => {
	it('labels tools with their server and keeps their MCP fields', () => {
		const merged = mergeServerTools([], 'files', [
			tool('read', {
				title: 'Read',
				description: 'Reads',
				outputSchema: { type: 'object' },
				annotations: { readOnlyHint: true },
			}),
		]);
		expect(merged).toEqual([
			{
				name: 'read',
				mcpName: 'read',
				server: 'files',
				title: 'Read',
				description: 'Reads',
				inputSchema: { type: 'object' },
				outputSchema: { type: 'object' },
				annotations: { readOnlyHint: true },
			},
		]);
	});

	it('resolves a name collision between servers reversibly', () => {
		const first = mergeServerTools([], 'alpha', [tool('echo'), tool('math.mul')]);
		const both = mergeServerTools(first, 'beta server', [tool('echo'), tool('other')]);
		expect(both.map(({ name, server, mcpName }) => ({ name, server, mcpName }))).toEqual([
			{ name: 'echo', server: 'alpha', mcpName: 'echo' },
			{ name: 'math.mul', server: 'alpha', mcpName: 'math.mul' },
			{ name: 'beta_server__echo', server: 'beta server', mcpName: 'echo' },
			{ name: 'other', server: 'beta server', mcpName: 'other' },
		]);
	});

	it('replaces a server’s tools when listed again instead of duplicating them', () => {
		const once = mergeServerTools([tool('own')], 'alpha', [tool('echo')]);
		const twice = mergeServerTools(once, 'alpha', [tool('echo'), tool('add')]);
		expect(twice.map((t) => t.name)).toEqual(['own', 'echo', 'add']);
	});

	it('filters by name: all, only, except', () => {
		const tools = [tool('a'), tool('b'), tool('c')];
		expect(filterTools(tools, { mode: 'all' }).map((t) => t.name)).toEqual(['a', 'b', 'c']);
		expect(filterTools(tools, { mode: 'only', names: ['b'] }).map((t) => t.name)).toEqual(['b']);
		expect(filterTools(tools, { mode: 'except', names: ['b'] }).map((t) => t.name)).toEqual([
			'a',
			'c',
		]);
	});
});

describe('readConversation', () => {
	it('defaults missing lists, keeps other keys and refuses lists of the wrong type', () => {
		expect(readConversation({ topic: 'x' })).toEqual({
			topic: 'x',
			messages: [],
			tools: [],
			toolCalls: [],
			trace: [],
		});
		expect(() => readConversation({ messages: 'hello' })).toThrow(
			"The item's 'messages' must be a list, but it is a string",
		);
		expect(() => readConversation({ toolCalls: {} })).toThrow(
			"The item's 'toolCalls' must be a list, but it is an object",
		);
	});
});
