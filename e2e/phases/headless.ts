/**
 * The tool-loop example headless, with `n8n execute`: through Chat Completions, then through
 * Anthropic's Messages API, streamed (SSE events with input_json_delta, through this n8n's HTTP
 * helper). Nothing of the run may be left running after.
 */
import type { RunContext, StandIn } from '../context.ts';
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
