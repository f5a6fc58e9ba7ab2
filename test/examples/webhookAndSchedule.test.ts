import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import { reply } from '../support/chatCompletionsStandIn';
import {
	allowedFilesFolder,
	nodeTypesFrom,
	outputOf,
	runsOf,
	runWorkflow,
} from '../support/engine';
import { loadExample } from '../support/examples';
import { stdioCredential, stopServersAfterAll } from '../support/mcpWorkflow';
import { modelNodeTypes } from '../support/modelWorkflow';
import {
	createTempFolder,
	everythingStdio,
	filesystemStdio,
	removeTempFolder,
} from '../support/servers';
import { standInForEachTest } from '../support/standInPerTest';

const api = standInForEachTest({ expectScriptUsed: true });
stopServersAfterAll();

const nodeTypes = () => ({ ...modelNodeTypes(), ...nodeTypesFrom(new McpClient()) });
const modelCredential = () => ({
	baseUrl: api.baseURL,
	apiKey: 'sk-example-key',
	organization: '',
	headers: {},
});

describe('example: the webhook agent', () => {
	it('answers the question posted to the webhook, through a real MCP call, into Respond to Webhook', async () => {
		api.script(
			reply.toolCalls([{ id: 'call_1', name: 'get-sum', arguments: '{"a":1.5,"b":2.25}' }]),
			reply.text('1.5 + 2.25 = 3.75'),
		);
		// What n8n's Webhook node emits for POST /webhook/ask with a JSON body, pinned as the editor pins test data.
		const request = {
			headers: { 'content-type': 'application/json' },
			params: {},
			query: {},
			body: { question: 'What is 1.5 + 2.25?' },
		};
		// The stand-in answers as OpenAI's API would: priced as OpenAI, as the example is at api.openai.com.
		const priced = loadExample('webhook-agent.json', { Model: { budget: { priceAs: 'openai' } } });
		const run = await runWorkflow(priced, {
			nodeTypes: nodeTypes(),
			credentials: { mcpEverything: stdioCredential(everythingStdio()), openAi: modelCredential() },
			inputItems: [{ json: request }],
		});
		expect(run.status).toBe('success');
		expect(api.requests[0].body!.messages).toEqual([
			{ role: 'system', content: 'Answer the question. Use the tools when they help.' },
			{ role: 'user', content: 'What is 1.5 + 2.25?' },
		]);
		const offered = api.requests[0].body!.tools!.map((tool: any) => tool.function.name);
		expect(offered).toContain('get-sum');
		expect(offered).not.toContain('get-env');
		expect(api.requests[1].body!.messages[3]).toEqual({
			role: 'tool',
			tool_call_id: 'call_1',
			content: 'The sum of 1.5 and 2.25 is 3.75.',
		});

		const [responded] = outputOf(run, 'Respond');
		expect(responded.json).toMatchObject({
			answer: '1.5 + 2.25 = 3.75',
			rounds: 2,
			body: request.body,
		});
		// The caller gets the answer and what it cost: two rounds of gpt-4.1-mini, 21 and 9 tokens each.
		expect(run.responses.map((response) => response.body)).toEqual([
			{
				answer: '1.5 + 2.25 = 3.75',
				rounds: 2,
				stopReason: null,
				cost: 0.0000456,
				tokens: { input: 42, output: 18, cacheRead: 0, cacheWrite: null, reasoning: 0 },
			},
		]);
	});
});

describe('example: the scheduled inbox summary', () => {
	let inbox: string;
	beforeAll(async () => {
		inbox = await createTempFolder({
			'monday.txt': 'Ship the MCP node.',
			'tuesday.txt': 'Write the README.',
		});
	});
	afterAll(() => removeTempFolder(inbox));

	it('reads the folder with the filesystem server and writes the summary to a file', async () => {
		api.script(
			reply.toolCalls([
				{ id: 'call_ls', name: 'list_directory', arguments: JSON.stringify({ path: inbox }) },
			]),
			reply.toolCalls([
				{
					id: 'call_mon',
					name: 'read_text_file',
					arguments: JSON.stringify({ path: path.join(inbox, 'monday.txt') }),
				},
				{
					id: 'call_tue',
					name: 'read_text_file',
					arguments: JSON.stringify({ path: path.join(inbox, 'tuesday.txt') }),
				},
			]),
			reply.text('Monday: ship the MCP node.\nTuesday: write the README.'),
		);
		const summaryFile = path.join(await allowedFilesFolder(), 'inbox-summary.txt');
		// n8n resolves a new file's path by catching ENOENT with `instanceof Error`, which fails across
		// jest's module realm; overwriting an existing file takes the path a real n8n takes for both.
		writeFileSync(summaryFile, '');
		const workflow = loadExample('scheduled-inbox-summary.json', {
			'Write Summary': { fileName: summaryFile },
		});
		const run = await runWorkflow(workflow, {
			nodeTypes: nodeTypes(),
			credentials: { mcpInbox: stdioCredential(filesystemStdio(inbox)), openAi: modelCredential() },
		});
		expect(run.error?.message).toBeUndefined();
		expect(run.status).toBe('success');
		// The real Schedule Trigger ran (manual mode emits one item with the time).
		expect(Object.keys(outputOf(run, 'Every Morning')[0].json)).toEqual(
			expect.arrayContaining(['timestamp']),
		);
		expect(String(api.requests[0].body!.messages[1].content)).toMatch(
			/^Today is \w+ \d+ \w+ \d{4}\. Summarise/,
		);

		const results = runsOf(run, 'Execute Tool Calls').map((execute) =>
			(execute.outputs[0][0].json as any).messages.filter((m: any) => m.role === 'tool').at(-1),
		);
		expect(results[0].content).toBe('[FILE] monday.txt\n[FILE] tuesday.txt');
		const lastMessages = (
			runsOf(run, 'Execute Tool Calls')[1].outputs[0][0].json as any
		).messages.slice(-2);
		expect(lastMessages.map((m: any) => m.content)).toEqual([
			'Ship the MCP node.',
			'Write the README.',
		]);
		expect(readFileSync(summaryFile, 'utf8')).toBe(
			'Monday: ship the MCP node.\nTuesday: write the README.',
		);
	});
});
