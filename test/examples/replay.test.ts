/**
 * Replay and dry run of the example loop: the trace recorded in examples/ drives the workflow again
 * without the model API (and, in a dry run, without the MCP server), giving the same items; a run
 * that no longer matches the recording stops at the first step that differs.
 * `RECORD_EXAMPLE_TRACE=1 npx jest test/examples/replay` re-records examples/mcp-tool-loop.trace.json.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { INodeExecutionData } from 'n8n-workflow';
import { sharedPool } from '../../lib/mcp';
import { diffTraces } from '../../lib/trace/diff';
import { readTrace } from '../../lib/trace/read';
import { McpClient } from '../../nodes/McpClient/McpClient.node';
import { reply } from '../support/chatCompletionsStandIn';
import { errorOf, nodeTypesFrom, runsOf, runWorkflow, type EngineRun } from '../support/engine';
import { loadExample } from '../support/examples';
import { stdioCredential } from '../support/mcpWorkflow';
import { modelNodeTypes } from '../support/modelWorkflow';
import { everythingStdio, REPO_ROOT, stopAllServers } from '../support/servers';
import { standInForEachTest } from '../support/standInPerTest';

const TRACE_FILE = path.join(REPO_ROOT, 'examples', 'mcp-tool-loop.trace.json');
const api = standInForEachTest();
afterEach(async () => {
	await sharedPool.closeAll();
});
afterAll(stopAllServers);

const nodeTypes = () => ({ ...modelNodeTypes(), ...nodeTypesFrom(new McpClient()) });
const mcp = () => ({ mcpEverything: stdioCredential(everythingStdio()) });
const recordedText = () => readFileSync(TRACE_FILE, 'utf8');
// The stand-in answers as OpenAI's API would: priced as OpenAI, the recorded trace shows what the run cost there.
const PRICED_AS_OPENAI = { budget: { priceAs: 'openai' } };

async function liveRun(): Promise<EngineRun> {
	api.script(
		reply.toolCalls([{ id: 'call_sum', name: 'get-sum', arguments: '{"a":17,"b":25}' }]),
		reply.toolCalls([{ id: 'call_echo', name: 'echo', arguments: '{"message":"42"}' }], {
			content: 'Now I echo it.',
		}),
		reply.text('17 + 25 = 42, and the echo said: 42.'),
	);
	const credentials = {
		...mcp(),
		openAi: { baseUrl: api.baseURL, apiKey: 'sk-replay-test-key', organization: '', headers: {} },
	};
	const workflow = loadExample('mcp-tool-loop.json', { Model: PRICED_AS_OPENAI });
	return runWorkflow(workflow, { nodeTypes: nodeTypes(), credentials });
}

function replayedRun(
	options: { dryRun?: boolean; recording?: string; userMessage?: string } = {},
): Promise<EngineRun> {
	const recording = options.recording ?? recordedText();
	const workflow = loadExample('mcp-tool-loop.json', {
		Model: {
			...PRICED_AS_OPENAI,
			replay: 'json',
			replayTrace: recording,
			...(options.userMessage && { userMessage: options.userMessage }),
		},
		...(options.dryRun && {
			'List Tools': { dryRun: 'json', dryRunTrace: recording },
			'Execute Tool Calls': { dryRun: 'json', dryRunTrace: recording },
		}),
	});
	// No model credential at all: a replay must not need one.
	return runWorkflow(workflow, {
		nodeTypes: nodeTypes(),
		credentials: options.dryRun ? {} : mcp(),
	});
}

const finalItem = (run: EngineRun) => runsOf(run, 'Model').at(-1)!.outputs[1][0];
/** Every Model and Execute output item, with the trace compared as a story (times and ids differ by nature). */
const itemsOf = (run: EngineRun) =>
	['Model', 'Execute Tool Calls'].flatMap((name) =>
		runsOf(run, name).flatMap((nodeRun) =>
			nodeRun.outputs.flat().map(({ json: { trace, ...rest } }: INodeExecutionData) => rest),
		),
	);

describe('the recorded example trace', () => {
	it('is what the example loop records today', async () => {
		const run = await liveRun();
		expect(run.status).toBe('success');
		const trace = readTrace(finalItem(run).json);
		if (process.env.RECORD_EXAMPLE_TRACE === '1') {
			const note =
				'Recorded by test/examples/replay.test.ts: examples/mcp-tool-loop.json run in n8n’s engine against the real MCP server-everything and a local stand-in for the Chat Completions API scripted with three turns. No real model wrote these answers. Replay it with the Tool Calling Model node’s Replay option: it runs offline.';
			writeFileSync(TRACE_FILE, `${JSON.stringify({ note, trace }, null, '\t')}\n`);
		}
		const diff = diffTraces(readTrace(JSON.parse(recordedText())), trace);
		expect(diff.firstDivergence).toBeUndefined();
		expect(diff.equal).toBe(true);
	});
});

describe('replay', () => {
	it('gives the same items as the recorded run with no call to the model API and no model credential', async () => {
		const live = await liveRun();
		const requestsOfLiveRun = api.requests.length;
		const replayed = await replayedRun();

		expect(replayed.status).toBe('success');
		expect(api.requests).toHaveLength(requestsOfLiveRun);
		expect(itemsOf(replayed)).toEqual(itemsOf(live));
		// Priced as the recorded turns were: gpt-4.1-mini at $0.40 and $1.60 per million tokens.
		expect(finalItem(replayed).json.usage).toEqual({
			modelCalls: 3,
			toolCalls: 2,
			tokens: { input: 63, output: 27, cacheRead: 0, cacheWrite: null, reasoning: 0 },
			unreportedCalls: 0,
			cost: 0.0000684,
		});
		const trace = readTrace(finalItem(replayed).json);
		expect(diffTraces(readTrace(finalItem(live).json), trace).equal).toBe(true);
		const modelSteps = trace.filter((entry) => entry.step.startsWith('model.'));
		expect(modelSteps.map((entry) => [entry.step, entry.replayed])).toEqual([
			['model.request', true],
			['model.response', true],
			['model.request', true],
			['model.response', true],
			['model.request', true],
			['model.response', true],
		]);
	});

	it('with a dry run of the MCP Client as well, runs the whole workflow with no server and no API', async () => {
		const replayed = await replayedRun({ dryRun: true });

		expect(replayed.status).toBe('success');
		expect(api.requests).toHaveLength(0);
		expect(sharedPool.size).toBe(0);
		expect(finalItem(replayed).json).toMatchObject({
			answer: '17 + 25 = 42, and the echo said: 42.',
			rounds: 3,
		});
		const trace = readTrace(finalItem(replayed).json);
		expect(diffTraces(readTrace(JSON.parse(recordedText())), trace).equal).toBe(true);
		expect(
			trace.filter((entry) => entry.step === 'tools.call.result').every((entry) => entry.replayed),
		).toBe(true);
	});

	it('stops at the first step that differs from the recording, and names it', async () => {
		const drifted = await replayedRun({ userMessage: 'What is 17 + 26?' });

		expect(drifted.status).toBe('error');
		expect(errorOf(drifted, 'Model')?.message).toBe(
			'The run drifted from the recording at round 1, step model.request: messages.1.content was "What is 17 + 25? Then echo the result back to me." in the recording and is "What is 17 + 26?" now',
		);
	});

	it('in a dry run, answers a call that failed at the server with that same failure', async () => {
		const recording = JSON.parse(recordedText());
		const result = recording.trace.find((entry: any) => entry.step === 'tools.call.result');
		Object.assign(result, {
			status: 'timeout',
			payload: { error: "Tool 'get-sum' did not answer within 60000 ms." },
		});
		const run = await replayedRun({ dryRun: true, recording: JSON.stringify(recording) });

		const [executed] = runsOf(run, 'Execute Tool Calls')[0].outputs[0];
		const json = executed.json as any;
		expect(json.messages.at(-1)).toMatchObject({
			role: 'tool',
			isError: true,
			content: "Tool 'get-sum' did not answer within 60000 ms.",
		});
		expect(json.trace.at(-1)).toMatchObject({
			step: 'tools.call.result',
			status: 'timeout',
			replayed: true,
		});
		// The recorded model saw a result, not this failure: replaying it on drifts at the next request.
		expect(errorOf(run, 'Model')?.message).toMatch(
			/^The run drifted from the recording at round 2, step model.request: messages\.3\.content/,
		);
	});

	it('in a dry run, stops where the arguments of a call differ from the recorded ones', async () => {
		const recording = JSON.parse(recordedText());
		// The recorded model asked for 17 + 25; this recording says the server was asked for 17 + 26.
		const request = recording.trace.find((entry: any) => entry.step === 'tools.call.request');
		request.payload.arguments = { a: 17, b: 26 };
		const drifted = await replayedRun({ dryRun: true, recording: JSON.stringify(recording) });

		expect(drifted.status).toBe('error');
		expect(errorOf(drifted, 'Execute Tool Calls')?.message).toBe(
			'The run drifted from the recording at round 1, step tools.call.request: arguments.b was 26 in the recording and is 25 now',
		);
	});
});
