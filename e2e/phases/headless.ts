/**
 * The tool-loop example headless, with `n8n execute`: through Chat Completions, then through
 * Anthropic's Messages API, streamed (SSE events with input_json_delta, through this n8n's HTTP
 * helper), then with a structured answer from a fallback model. Nothing of the run may be left
 * running after.
 */
import type { RunContext, StandIn } from '../context.ts';
import { executeResult, standInState } from '../executeOutput.ts';
import { readFileSync } from 'node:fs';
import { runProcesses, showLogTail } from '../processes.ts';
import {
	checkLogs,
	everythingCredential,
	openAiCredential,
	type McpServers,
} from './credentials.ts';

/**
 * Imports credentials and a workflow, runs it with `n8n execute` and stops its stand-in (which
 * then writes the requests it received): what n8n printed, or undefined when an import failed.
 */
async function executeLoop(
	ctx: RunContext,
	what: string,
	standIn: StandIn,
	credentials: string,
	workflow: string,
	id: string,
): Promise<string | undefined> {
	const imported =
		(await ctx.importFile('credentials', `the credentials (${what})`, credentials)) &&
		(await ctx.importFile('workflow', `the workflow (${what})`, workflow));
	if (!imported) return undefined;
	await ctx.n8n(`n8n execute runs the ${what}`, 300, ['execute', `--id=${id}`, '--rawOutput']);
	const output = ctx.lastN8nLog;
	await ctx.stopStandIn(standIn);
	return output;
}

export async function headlessPhases(ctx: RunContext, servers: McpServers): Promise<void> {
	const { results } = ctx;
	results.phase('run the tool loop (n8n execute)');
	const loop = await ctx.standIn('loop');
	if (!loop) {
		results.fail('the stand-in starts', 'no state file after 20 s');
	} else {
		const credentials = ctx.writeCredentials('loop', [
			everythingCredential(ctx, servers),
			openAiCredential(ctx, 'openAi', 'OpenAI', loop.baseUrl),
		]);
		const workflow = ctx.writeWorkflow('mcp-tool-loop.json', 'e2eToolLoop');
		const output = await executeLoop(ctx, 'tool loop', loop, credentials, workflow, 'e2eToolLoop');
		if (output) {
			const before = results.failed;
			await ctx.checker('e2e/check.ts', [
				'loop',
				'--output',
				output,
				'--standin',
				loop.state,
				'--api-key',
				ctx.apiKey,
			]);
			if (results.failed > before) showLogTail(output, 60);
			checkLogs(ctx, 'loop');
		}
		await ctx.stopStandIn(loop);
	}

	results.phase('run the tool loop with Anthropic, streamed (n8n execute)');
	const anthropic = await ctx.standIn('loop', 'loop-anthropic', ['--dialect', 'anthropic']);
	if (!anthropic) {
		results.fail('the Anthropic stand-in starts', 'no state file after 20 s');
	} else {
		const credentials = ctx.writeCredentials('anthropic', [
			{
				id: 'anthropic',
				name: 'Anthropic',
				type: 'anthropicMessagesApi',
				data: {
					baseUrl: anthropic.baseUrl.replace(/\/v1$/, ''),
					apiKey: ctx.apiKey,
					version: '2023-06-01',
					headers: {},
				},
			},
		]);
		const workflow = ctx.writeWorkflow('mcp-tool-loop.json', 'e2eToolLoopAnthropic', (copy) => {
			const model = copy.node('n8n-nodes-tool-calling.toolCallingModel');
			model.parameters = {
				...model.parameters,
				provider: 'anthropic',
				model: { __rl: true, mode: 'id', value: 'claude-sonnet-4-5' },
				options: { ...model.parameters.options, stream: true },
			};
			model.credentials = { anthropicMessagesApi: { id: 'anthropic', name: 'Anthropic' } };
		});
		const what = 'loop with Anthropic, streamed';
		const output = await executeLoop(
			ctx,
			what,
			anthropic,
			credentials,
			workflow,
			'e2eToolLoopAnthropic',
		);
		if (output) {
			await ctx.checker('e2e/check.ts', [
				'vendorLoop',
				'--output',
				output,
				'--standin',
				anthropic.state,
				'--api-key',
				ctx.apiKey,
				'--dialect',
				'anthropic',
				'--path',
				'/v1/messages',
			]);
		}
		await ctx.stopStandIn(anthropic);
	}
	await structuredAnswerByFallback(ctx, servers);
	results.check(
		'every n8n command exited leaving no process behind',
		ctx.leftRunning.length === 0,
		`left running after: ${ctx.leftRunning.join(' ')}`,
	);
	const leftovers = runProcesses(ctx.runId);
	results.check(
		'no MCP server process outlived n8n execute',
		leftovers.length === 0,
		leftovers.join(';'),
	);
}

const ANSWER_SCHEMA = {
	type: 'object',
	properties: { sum: { type: 'number' }, echoed: { type: 'string' } },
	required: ['sum', 'echoed'],
	additionalProperties: false,
};

/**
 * The loop with a Response Format (JSON Schema) and a fallback: its Chat Completions API answers
 * every request 503, so the Anthropic model of a Fallback Model API credential takes each turn,
 * asked for the schema natively (`output_config`); the item's `output` is the answer parsed.
 */
async function structuredAnswerByFallback(ctx: RunContext, servers: McpServers): Promise<void> {
	const { results } = ctx;
	results.phase('run the tool loop for a structured answer, by a fallback model (n8n execute)');
	const overloaded = await ctx.standIn('overloaded');
	const fallback = await ctx.standIn('structuredLoop', 'structured-anthropic', [
		'--dialect',
		'anthropic',
	]);
	if (!overloaded || !fallback) {
		results.fail('the stand-ins start', 'no state file after 20 s');
		await Promise.all([ctx.stopStandIn(overloaded), ctx.stopStandIn(fallback)]);
		return;
	}
	const credentials = ctx.writeCredentials('fallback', [
		everythingCredential(ctx, servers),
		openAiCredential(ctx, 'openAi', 'OpenAI', overloaded.baseUrl),
		{
			id: 'fallback',
			name: 'Fallback',
			type: 'fallbackModelApi',
			data: {
				provider: 'anthropic',
				baseUrl: fallback.baseUrl.replace(/\/v1$/, ''),
				apiKey: ctx.apiKey,
				organization: '',
				version: '2023-06-01',
				headers: {},
			},
		},
	]);
	const id = 'e2eStructuredFallback';
	const workflow = ctx.writeWorkflow('mcp-tool-loop.json', id, (copy) => {
		const model = copy.node('n8n-nodes-tool-calling.toolCallingModel');
		model.parameters = {
			...model.parameters,
			responseFormat: 'jsonSchema',
			responseSchema: JSON.stringify(ANSWER_SCHEMA),
			fallbackProvider: 'anthropic',
			fallbackModel: 'claude-sonnet-4-5',
			options: { ...model.parameters.options, maxRetries: 0 },
		};
		model.credentials = {
			...model.credentials,
			fallbackModelApi: { id: 'fallback', name: 'Fallback' },
		};
	});
	const what = 'loop for a structured answer, by a fallback';
	const output = await executeLoop(ctx, what, fallback, credentials, workflow, id);
	await ctx.stopStandIn(overloaded);
	if (!output) return;
	const label = 'structured answer by a fallback';
	try {
		const run = executeResult(readFileSync(output, 'utf8'));
		const error = run.data?.resultData?.error;
		const final = run.data?.resultData?.runData?.Model?.at(-1)?.data?.main?.[1]?.[0]?.json;
		results.check(
			`${label}: the workflow succeeded, its item's output the answer parsed`,
			!error && JSON.stringify([final?.output, final?.rounds]) === '[{"sum":42,"echoed":"42"},3]',
			error ? `${error.node?.name}: ${error.message}` : JSON.stringify(final?.output),
		);
		const primary = standInState(overloaded.state).requests!.filter((r) => r.method === 'POST');
		results.check(
			`${label}: the first model was asked once a round, no retry (Max Retries 0)`,
			primary.length === 3,
			`${primary.length} requests`,
		);
		const asked = standInState(fallback.state).requests!.filter((r) => r.method === 'POST');
		results.check(
			`${label}: each round's request to the fallback asks for the schema as Anthropic takes it`,
			asked.length === 3 &&
				asked.every(
					(r) =>
						r.path === '/v1/messages' &&
						r.body?.output_config?.format?.type === 'json_schema' &&
						JSON.stringify(r.body.output_config.format.schema.required) === '["sum","echoed"]',
				),
			JSON.stringify(asked.map((r) => [r.path, r.body?.output_config])).slice(0, 400),
		);
		const trace: Array<{
			step?: string;
			dialect?: string;
			status?: string;
			fallback?: { instead?: { model?: string }; because?: string };
		}> = final?.trace ?? [];
		const answered = trace.filter((entry) => entry.step === 'model.response');
		results.check(
			`${label}: the trace says the fallback answered each turn, and why the first did not`,
			answered.length === 3 &&
				answered.every(
					(entry) =>
						entry.dialect === 'anthropic' &&
						entry.fallback?.instead?.model === 'gpt-4.1-mini' &&
						/^HTTP 503/.test(entry.fallback?.because ?? ''),
				),
			JSON.stringify(answered.map((entry) => entry.fallback)),
		);
		results.check(
			`${label}: the answer was checked against the schema`,
			trace.some((entry) => entry.step === 'answer.validation' && entry.status === 'valid'),
			'no valid answer.validation entry',
		);
		results.check(
			`${label}: the key appears in no output`,
			!readFileSync(output, 'utf8').includes(ctx.apiKey),
			"the key is in n8n execute's output",
		);
	} catch (error) {
		results.fail(`${label}: reading what n8n produced`, String(error));
		showLogTail(output, 60);
	}
}
