/**
 * Streaming to the person: the example loop run as n8n runs a workflow whose Chat Trigger (or
 * Webhook) answers by streaming, every provider's stand-in streaming its answer in uneven pieces.
 * What n8n's sendChunk hook receives is what the chat shows.
 */
import type { StructuredChunk } from 'n8n-workflow';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import { PROVIDERS } from '../../nodes/ToolCallingModel/providers';
import { nodeTypesFrom, runsOf, runWorkflow } from '../support/engine';
import { loadExample } from '../support/examples';
import { stdioCredential, stopServersAfterAll } from '../support/mcpWorkflow';
import { modelNodeTypes } from '../support/modelWorkflow';
import { everythingStdio } from '../support/servers';
import { DIALECT_IDS, reply, type DialectId, type StandIn } from '../support/standIn';
import { standInForEachTest } from '../support/standInPerTest';

stopServersAfterAll();

const API_KEY = 'sk-streaming-test-key-8c1f';
const MODELS: Record<DialectId, string> = {
	openaiChat: 'gpt-4.1-mini',
	openaiResponses: 'gpt-4.1-mini',
	anthropic: 'claude-sonnet-4-5',
	gemini: 'gemini-2.5-flash',
	ollama: 'qwen3:8b',
};
const nodeTypes = () => ({ ...modelNodeTypes(), ...nodeTypesFrom(new McpClient()) });
const sumCall = { name: 'get-sum', arguments: '{"a":17,"b":25}' };
const echoCall = { name: 'echo', arguments: '{"message":"42"}' };
const ANSWER = 'The sum of 17 and 25 is 42, and the echo said 42 back.';

/** The example loop against a stand-in of `dialect`, its chunks recorded as n8n's hook gets them. */
async function streamedRun(api: StandIn, dialect: DialectId, options: Record<string, unknown>) {
	const chunks: StructuredChunk[] = [];
	const workflow = loadExample('mcp-tool-loop.json', {
		Model: {
			provider: dialect,
			model: { __rl: true, mode: 'id', value: MODELS[dialect] },
			options: { maxRounds: 6, ...options },
		},
	});
	const model = workflow.nodes.find((node) => node.name === 'Model')!;
	model.credentials = { [PROVIDERS[dialect].credentialType]: { id: 'model', name: 'model' } };
	const run = await runWorkflow(workflow, {
		nodeTypes: nodeTypes(),
		credentials: {
			mcpEverything: stdioCredential(everythingStdio()),
			model: { baseUrl: api.baseURL, apiKey: API_KEY, headers: {} },
		},
		onChunk: (chunk) => {
			chunks.push(chunk);
		},
	});
	return { run, chunks };
}

/** The chunks of one run of the Model node: one message in the chat. */
const ofRun = (chunks: StructuredChunk[], runIndex: number) =>
	chunks.filter(
		(chunk) => chunk.metadata.nodeName === 'Model' && chunk.metadata.runIndex === runIndex,
	);
const text = (chunks: StructuredChunk[]) =>
	chunks
		.filter((chunk) => chunk.type === 'item')
		.map((chunk) => chunk.content)
		.join('');

describe.each(
	DIALECT_IDS.flatMap((dialect) => [
		[dialect, true],
		[dialect, false],
	]) as Array<[DialectId, boolean]>,
)('%s, Stream %s', (dialect, stream) => {
	const api: StandIn = standInForEachTest(dialect, { apiKey: API_KEY });

	it('sends each round’s text to the caller, the final answer byte for byte', async () => {
		api.script(
			reply.toolCalls([sumCall]),
			reply.toolCalls([echoCall], { content: 'Let me echo that for you.' }),
			reply.text(ANSWER),
		);
		const { run, chunks } = await streamedRun(api, dialect, { stream });

		expect(run.status).toBe('success');
		const final = runsOf(run, 'Model')[2].outputs[1][0].json as { answer: string };
		expect(final.answer).toBe(ANSWER);
		// Round 1 had calls and no text: no message in the chat.
		expect(ofRun(chunks, 0)).toEqual([]);
		for (const [runIndex, expected] of [
			[1, 'Let me echo that for you.'],
			[2, ANSWER],
		] as const) {
			const own = ofRun(chunks, runIndex);
			expect(own[0].type).toBe('begin');
			expect(own.at(-1)!.type).toBe('end');
			expect(own.slice(1, -1).every((chunk) => chunk.type === 'item')).toBe(true);
			expect(text(own)).toBe(expected);
			expect(own.every((chunk) => chunk.metadata.itemIndex === 0)).toBe(true);
		}
		// Streamed, the answer arrives piece by piece as the vendor wrote it; else as one piece.
		const pieces = ofRun(chunks, 2).filter((chunk) => chunk.type === 'item').length;
		if (stream) expect(pieces).toBeGreaterThan(3);
		else expect(pieces).toBe(1);
	});

	it('never sends the credential’s key, split across the vendor’s events or not', async () => {
		api.script(reply.text(`Your key is ${API_KEY}; keep it secret.`));
		const { run, chunks } = await streamedRun(api, dialect, { stream });

		const final = runsOf(run, 'Model')[0].outputs[1][0].json as { answer: string };
		expect(final.answer).toBe('Your key is [redacted]; keep it secret.');
		expect(text(chunks)).toBe(final.answer);
		for (const chunk of chunks) expect(String(chunk.content ?? '')).not.toMatch(/8c1f|key-8/);
	});

	it('announces each tool call in a line when asked, and sends an error chunk for a failed call', async () => {
		api.script(
			reply.toolCalls([sumCall, echoCall]),
			reply.error(400, `This model does not exist for key ${API_KEY}`),
		);
		const { run, chunks } = await streamedRun(api, dialect, { stream, announceToolCalls: true });

		expect(text(ofRun(chunks, 0))).toBe('Calling get-sum…\nCalling echo…\n\n');
		// The node's own error chunk names what failed; n8n adds its own when the node stops the run.
		const failed = ofRun(chunks, 1);
		expect(failed.map((chunk) => chunk.type)).toEqual(['error', 'error']);
		expect(failed[0].content).toContain('This model does not exist for key [redacted]');
		expect(JSON.stringify(failed)).not.toContain(API_KEY);
		expect(run.status).toBe('error');
	});
});

describe('a conversation stopped by Max Rounds', () => {
	const api: StandIn = standInForEachTest('openaiChat', { apiKey: API_KEY });

	it('tells the person why no answer comes', async () => {
		api.script(reply.toolCalls([sumCall]));
		const { run, chunks } = await streamedRun(api, 'openaiChat', { stream: true, maxRounds: 1 });
		const stopped = runsOf(run, 'Model')[1].outputs[1][0].json as { stopReason: string };
		expect(stopped.stopReason).toBe('Stopped before round 2: Max Rounds is 1');
		expect(ofRun(chunks, 1).map((chunk) => [chunk.type, chunk.content])).toEqual([
			['error', 'Stopped before round 2: Max Rounds is 1'],
		]);
	});
});

describe('when the chat is not to see the text', () => {
	const api: StandIn = standInForEachTest('openaiChat', { apiKey: API_KEY });

	it('sends nothing with Stream to Chat off', async () => {
		api.script(reply.text(ANSWER));
		const { run, chunks } = await streamedRun(api, 'openaiChat', {
			stream: true,
			streamToChat: false,
		});
		expect(runsOf(run, 'Model')[0].outputs[1][0].json).toMatchObject({ answer: ANSWER });
		expect(chunks.filter((chunk) => chunk.metadata.nodeName === 'Model')).toEqual([]);
	});
});
