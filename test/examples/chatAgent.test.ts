/**
 * examples/chat-agent.json in n8n-core's engine, as n8n runs it for each chat message in Streaming
 * mode: n8n's real Data table node reads and writes the session (its tables a stand-in, see
 * test/support/dataTables.ts), the real MCP server answers, a Chat Completions stand-in streams.
 */
import { NodeConnectionTypes, type INodeType, type StructuredChunk } from 'n8n-workflow';
import { ChatMemory } from '../../nodes/ChatMemory/ChatMemory.node';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import { DataTables } from '../support/dataTables';
import { nodeTypesFrom, runsOf, runWorkflow } from '../support/engine';
import { loadExample } from '../support/examples';
import { stdioCredential, stopServersAfterAll } from '../support/mcpWorkflow';
import { modelNodeTypes, standInCredential } from '../support/modelWorkflow';
import { everythingStdio } from '../support/servers';
import { reply } from '../support/standIn';
import { standInForEachTest } from '../support/standInPerTest';

stopServersAfterAll();

/** Stands in for n8n's Chat Trigger (in @n8n/n8n-nodes-langchain, not installed here): its output is pinned. */
const chatTrigger: INodeType = {
	description: {
		displayName: 'Chat Trigger',
		name: 'chatTrigger',
		group: ['trigger'],
		version: [1, 1.4],
		description: 'Pinned chat message',
		defaults: { name: 'When chat message received' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		properties: [],
	},
};

const nodeTypes = () => ({
	...modelNodeTypes(),
	...nodeTypesFrom(new McpClient(), new ChatMemory()),
	'@n8n/n8n-nodes-langchain.chatTrigger': chatTrigger,
});

describe('examples/chat-agent.json', () => {
	const api = standInForEachTest({ apiKey: 'sk-test-secret-key' });
	let tables: DataTables;
	beforeEach(() => {
		tables = new DataTables();
	});

	/** One chat message through the example, as n8n runs it: its chunks and the run. */
	async function chat(sessionId: string, chatInput: string) {
		const chunks: StructuredChunk[] = [];
		const run = await runWorkflow(loadExample('chat-agent.json'), {
			nodeTypes: nodeTypes(),
			credentials: {
				mcpEverything: stdioCredential(everythingStdio()),
				...{ openAi: standInCredential(api).openAiCompatibleApi },
			},
			inputItems: [{ json: { sessionId, action: 'sendMessage', chatInput } }],
			dataTables: tables,
			onChunk: (chunk) => {
				chunks.push(chunk);
			},
		});
		const said = (node: string) =>
			chunks
				.filter((chunk) => chunk.type === 'item' && chunk.metadata.nodeName === node)
				.map((chunk) => chunk.content)
				.join('');
		return { run, chunks, streamed: said('Model'), usageSaid: said('Save Conversation') };
	}

	const sum = { name: 'get-sum', arguments: '{"a":17,"b":25}' };
	const SUM_RESULT = 'The sum of 17 and 25 is 42.';

	it('continues a session across messages with every tool call and result', async () => {
		api.script(
			reply.toolCalls([sum]),
			reply.text('17 + 25 = 42.'),
			reply.text('Hello to you too.'),
			reply.text('Earlier I added 17 and 25 and got 42.'),
		);
		const first = await chat('s1', 'What is 17 + 25?');
		expect(first.run.status).toBe('success');
		expect(first.streamed).toBe('17 + 25 = 42.');
		const second = await chat('s1', 'Hello!');
		expect(second.streamed).toBe('Hello to you too.');
		const third = await chat('s1', 'What did you compute earlier?');
		expect(third.streamed).toBe('Earlier I added 17 and 25 and got 42.');

		// Message 3's request holds message 1's call and its result as real messages.
		const messages = (api.requests[3].body as any).messages;
		expect(messages.map((message: any) => message.role)).toEqual([
			'system',
			'user',
			'assistant',
			'tool',
			'assistant',
			'user',
			'assistant',
			'user',
		]);
		expect(messages[2].tool_calls[0].function).toEqual(sum);
		expect(messages[3]).toMatchObject({ role: 'tool', content: SUM_RESULT });
		expect(messages[3].tool_call_id).toBe(messages[2].tool_calls[0].id);

		// One row per message, appended.
		const rows = tables.rowsOf('chat_memory');
		expect(rows.map((row) => [row.sessionId, row.turn])).toEqual([
			['s1', 1],
			['s1', 2],
			['s1', 3],
		]);
		expect(JSON.parse(String(rows[0].messages)).map((message: any) => message.role)).toEqual([
			'user',
			'assistant',
			'tool',
			'assistant',
		]);
		// The session's usage goes on from message to message: 2 model calls, then 1, then 1.
		const finalItem = (run: typeof first.run) =>
			runsOf(run, 'Model').at(-1)!.outputs[1][0].json as any;
		expect(finalItem(first.run).usage).toMatchObject({ modelCalls: 2, toolCalls: 1 });
		expect(finalItem(third.run).usage).toMatchObject({ modelCalls: 4, toolCalls: 1 });
		expect(rows.map((row) => JSON.parse(String(row.usage)).modelCalls)).toEqual([2, 1, 1]);
		// Save tells the person, in a message of its own, what the answer cost and the session so far.
		expect(third.usageSaid).toMatch(
			/^This answer: 1 model call, 0 tool calls, .*\. The session so far: 4 model calls, 1 tool call, .*\.$/,
		);
		const load = runsOf(third.run, 'Load Conversation')[0].outputs[0][0].json as any;
		expect(load.trace[0]).toMatchObject({
			step: 'memory.load',
			session: 's1',
			turnsStored: 2,
			turnsKept: 2,
		});
	});

	it('keeps two sessions apart, also when their messages run at once', async () => {
		api.script(
			reply.text('Hi A.'),
			reply.text('Hi B.'),
			reply.text('Again A.'),
			reply.text('Again B.'),
		);
		await Promise.all([chat('a', 'I am A'), chat('b', 'I am B')]);
		await Promise.all([chat('a', 'Who am I?'), chat('b', 'Who am I?')]);
		const asked = api.requests.map((request) =>
			(request.body as any).messages
				.filter((message: any) => message.role === 'user')
				.map((message: any) => message.content),
		);
		expect(asked).toContainEqual(['I am A', 'Who am I?']);
		expect(asked).toContainEqual(['I am B', 'Who am I?']);
		expect(asked.flat().filter((text) => text === 'I am A')).toHaveLength(2);
		expect(tables.rowsOf('chat_memory').filter((row) => row.sessionId === 'a')).toHaveLength(2);
	});

	it('fails the message of a session whose stored turn was broken by hand, naming it', async () => {
		api.script(reply.text('First.'));
		await chat('s1', 'Hi');
		const [stored] = tables.rowsOf('chat_memory');
		tables.edit('chat_memory', stored.id, { messages: '[{"role":"bot"}]' });
		const broken = await chat('s1', 'Still there?');
		expect(broken.run.status).toBe('error');
		expect(broken.run.error?.message).toContain(
			'Session \'s1\', turn 1: Message 1 of its messages has the role "bot"',
		);
		expect(api.requests).toHaveLength(1);
	});
});
