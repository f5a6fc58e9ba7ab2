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

	const user = { role: 'user', content: 'hi' };
	it.each([
		[
			'a role no vendor shares',
			{ messages: [{ role: 'developer', content: 'Answer in French.' }, user] },
			`Message 1 of the item's 'messages' has the role "developer"; a message's role is system, user, assistant or tool (a developer message is a system message here)`,
		],
		[
			'a role written otherwise',
			{ messages: [{ role: 'User', content: 'hi' }] },
			`Message 1 of the item's 'messages' has the role "User"`,
		],
		[
			'a message that is text',
			{ messages: ['hi'] },
			`Message 1 of the item's 'messages' must be an object, but it is a string`,
		],
		[
			'a message that is null',
			{ messages: [user, null] },
			`Message 2 of the item's 'messages' must be an object, but it is null`,
		],
		[
			'content that is not text',
			{ messages: [{ role: 'user', content: { text: 'hi' } }] },
			`Message 1 of the item's 'messages' (user) has content that is an object; its content must be text`,
		],
		[
			'tool_calls that are no list',
			{ messages: [user, { role: 'assistant', content: null, tool_calls: 'x' }] },
			`Message 2 of the item's 'messages' (assistant) has 'tool_calls' that are not a list of calls`,
		],
		[
			'a tool message answering no call',
			{ messages: [user, { role: 'tool', content: '5' }] },
			`Message 2 of the item's 'messages' (tool) names no 'tool_call_id' it answers`,
		],
		[
			'a tool that is null',
			{ messages: [user], tools: [null] },
			`Tool 1 of the item's 'tools' must be an object, but it is null`,
		],
		[
			'a tool without a name',
			{ tools: [{ description: 'x' }] },
			`Tool 1 of the item's 'tools' has no name`,
		],
		[
			'a schema that is text',
			{ tools: [{ name: 'add', inputSchema: '{}' }] },
			`Tool 1 of the item's 'tools' ('add') has an inputSchema that is a string`,
		],
		[
			'a pending call that is null',
			{ toolCalls: [null] },
			`Pending call 1 of the item's 'toolCalls' must be an object`,
		],
		[
			'a pending call without an id',
			{ toolCalls: [{ name: 'add', arguments: {} }] },
			`Pending call 1 of the item's 'toolCalls' (add) needs an 'id', the text its answer names`,
		],
		[
			'a pending call whose id is an object',
			{ toolCalls: [{ id: { n: 1 }, name: 'add', arguments: {} }] },
			`Pending call 1 of the item's 'toolCalls' (add) needs an 'id', the text its answer names, but it is an object`,
		],
		[
			'a trace entry that is null',
			{ trace: [null] },
			`Entry 1 of the item's 'trace' must be an object, but it is null`,
		],
		[
			'rounds that are no whole number',
			{ rounds: 'two' },
			`The item's 'rounds' must be a whole number from 0, but it is "two"`,
		],
	])('refuses %s, naming it', (_case, json, message) => {
		expect(() => readConversation(json)).toThrow(message);
	});

	it('reads a call id given as a number (a sheet, a Set field) as its text, wherever the call is named', () => {
		const call = { id: 7, name: 'add', arguments: { a: 1 } };
		const made = { id: 7, type: 'function', function: { name: 'add', arguments: '{"a":1}' } };
		const read = readConversation({
			messages: [
				{ role: 'user', content: 'add' },
				{ role: 'assistant', content: null, tool_calls: [made] },
				{ role: 'tool', tool_call_id: 8, content: '2' },
			],
			toolCalls: [call],
		});
		expect(read.toolCalls).toEqual([{ ...call, id: '7' }]);
		expect(read.messages.slice(1)).toEqual([
			{ role: 'assistant', content: null, tool_calls: [{ ...made, id: '7' }] },
			{ role: 'tool', tool_call_id: '8', content: '2' },
		]);
	});

	it('reads rounds given as text (a sheet, a Set field) as the number', () => {
		expect(readConversation({ rounds: '3' }).rounds).toBe(3);
		expect(readConversation({ rounds: 0 }).rounds).toBe(0);
	});
});
