/**
 * examples/approval-agent.json in `n8n start`: a webhook agent whose file writes (tools the MCP
 * filesystem server annotates destructive) wait for a person. Run once, the person approves through
 * the execution's resume URL and the file is written; run again, the person declines and the
 * model's next request carries the declined message; no file is written.
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunContext } from '../context.ts';
import { PROJECT_ROOT } from '../n8n.ts';
import {
	callWebhook,
	createCredential,
	executionData,
	executionsOf,
	publishWorkflow,
	send,
	type Loose,
} from '../n8nRest.ts';
import type { RunningN8n } from '../phase.ts';
import { openAiCredential, stdioCredential, type McpServers } from './credentials.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls a workflow's newest execution until it has a status of `wanted` (or ended otherwise). */
async function executionWith(
	n8n: RunningN8n,
	workflowId: string,
	count: number,
	wanted: string,
	limitMs: number,
): Promise<Loose> {
	const started = Date.now();
	for (;;) {
		const executions = await executionsOf(n8n, workflowId);
		const newest = executions.length >= count ? executions[0] : undefined;
		if (
			newest &&
			(newest.status === wanted || !['new', 'running', 'waiting'].includes(newest.status))
		)
			return newest;
		if (Date.now() - started > limitMs) return newest;
		await sleep(500);
	}
}

/** Runs the phase; the id of the approval example's workflow, once it is published. */
export async function approvalPhase(
	ctx: RunContext,
	n8n: RunningN8n,
	servers: McpServers,
): Promise<string | undefined> {
	const { results } = ctx;
	const notes = join(ctx.runDir, 'notes');
	mkdirSync(notes, { recursive: true });
	const standIn = await ctx.standIn('approval', 'approval', ['--inbox', notes]);
	if (!standIn) {
		results.fail('approval: the stand-in starts', 'no state file after 20 s');
		return undefined;
	}
	let workflowId: string | undefined;
	try {
		const files = stdioCredential(ctx, 'unused', 'MCP filesystem: notes', servers.filesystem, [
			notes,
		]);
		const model = openAiCredential(ctx, 'unused', 'OpenAI (approval)', standIn.baseUrl);
		const ids: Record<string, string> = {
			mcpStdioServerApi: await createCredential(n8n, files.name, files.type, files.data),
			openAiCompatibleApi: await createCredential(n8n, model.name, model.type, model.data),
		};
		const example = JSON.parse(
			readFileSync(join(PROJECT_ROOT, 'examples/approval-agent.json'), 'utf8'),
		);
		for (const node of example.nodes) {
			for (const type of Object.keys(node.credentials ?? {})) {
				node.credentials[type] = { id: ids[type], name: type };
			}
		}
		workflowId = await publishWorkflow(n8n, example);
		const limit = 60_000 * ctx.scale;

		for (const [run, decision] of [
			[1, { callId: 'call_write_1', approved: true, by: 'e2e@example.com' }],
			[
				2,
				{
					callId: 'call_write_2',
					approved: false,
					by: 'e2e@example.com',
					note: 'No new notes today.',
				},
			],
		] as const) {
			const what = decision.approved ? 'approved' : 'declined';
			const request = await callWebhook(n8n, 'approve', { request: `Write note ${run}.` }, limit);
			const waiting = await executionWith(n8n, workflowId, run, 'waiting', limit);
			const held = waiting?.status === 'waiting' ? await executionData(n8n, waiting.id) : undefined;
			const asked =
				held?.resultData?.runData?.['Execute Tool Calls']?.at(-1)?.data?.main?.[1]?.[0]?.json
					?.approval?.requested;
			results.check(
				`approval: run ${run} waits for a person, the write_file call held with approval.requested`,
				request.status === 200 &&
					request.json?.needsApproval?.[0]?.callId === decision.callId &&
					asked?.length === 1 &&
					asked[0].callId === decision.callId &&
					asked[0].tool === 'write_file' &&
					!existsSync(join(notes, `note-${run}.txt`)),
				`webhook HTTP ${request.status} ${request.text.slice(0, 300)}; execution ${waiting?.id}: ${waiting?.status}; asked ${JSON.stringify(asked)}`,
			);
			if (waiting?.status !== 'waiting') continue;
			// The example answers the request with the calls to decide and where to post the decisions.
			const decide =
				typeof request.json?.decide === 'string'
					? request.json.decide
					: `${n8n.baseUrl}/webhook-waiting/${waiting.id}`;
			const resumed = await send(
				decide,
				{
					method: 'POST',
					headers: { 'content-type': 'application/json' },
					body: JSON.stringify({ decisions: [decision] }),
				},
				limit,
			);
			const ended = await executionWith(n8n, workflowId, run, 'success', limit);
			const written = existsSync(join(notes, `note-${run}.txt`));
			results.check(
				`approval: run ${run}, ${what} through the execution's resume URL, ends with the model's answer${decision.approved ? ' and the file written' : ' and no file'}`,
				resumed.status === 200 && ended?.status === 'success' && written === decision.approved,
				`resume HTTP ${resumed.status} ${resumed.text.slice(0, 200)}; execution ${ended?.id}: ${ended?.status}; file written: ${written}`,
			);
		}
	} finally {
		await ctx.stopStandIn(standIn);
	}
	const state = JSON.parse(readFileSync(standIn.state, 'utf8')) as Loose;
	const requests = (state.requests ?? []).filter(
		(request: Loose) =>
			request.method === 'POST' && request.path.startsWith('/v1/chat/completions'),
	);
	const toolMessage = (index: number) =>
		requests[index]?.body?.messages?.filter((message: Loose) => message.role === 'tool').at(-1)
			?.content;
	results.check(
		"approval: the model's next request carries the tool's result when approved, and the person's refusal and reason when declined",
		requests.length === 4 &&
			/^Successfully wrote/.test(String(toolMessage(1))) &&
			/^A person \(e2e@example.com\) declined this call.*No new notes today\./.test(
				String(toolMessage(3)),
			),
		`${requests.length} model requests; after approval: ${JSON.stringify(toolMessage(1))}; after declining: ${JSON.stringify(toolMessage(3))}`,
	);
	return workflowId;
}
