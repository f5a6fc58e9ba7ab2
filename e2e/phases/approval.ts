/**
 * examples/approval-agent.json in `n8n start`: a webhook agent whose file writes (tools the MCP
 * filesystem server annotates destructive) wait for a person. Run once, the person approves two
 * writes one after the other through the execution's resume URL, the second asked for in the
 * answer to the first POST, and both files are written; run again, the person declines and the
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
		const answer = JSON.parse(readFileSync(standIn.state, 'utf8')).answer as string;
		const limit = 60_000 * ctx.scale;

		const approve = (callId: string) => ({ callId, approved: true, by: 'e2e@example.com' });
		const decline = (callId: string) => ({
			callId,
			approved: false,
			by: 'e2e@example.com',
			note: 'No new notes today.',
		});
		// Run 1 asks twice within one execution: the second request for a decision is the answer to
		// the person's first POST.
		for (const [run, decisions] of [
			[1, [approve('call_write_1'), approve('call_write_1b')]],
			[2, [decline('call_write_2')]],
		] as const) {
			const first = decisions[0];
			const request = await callWebhook(n8n, 'approve', { request: `Write note ${run}.` }, limit);
			const waiting = await executionWith(n8n, workflowId, run, 'waiting', limit);
			const held = waiting?.status === 'waiting' ? await executionData(n8n, waiting.id) : undefined;
			const asked =
				held?.resultData?.runData?.['Execute Tool Calls']?.at(-1)?.data?.main?.[1]?.[0]?.json
					?.approval?.requested;
			results.check(
				`approval: run ${run} waits for a person, the write_file call held with approval.requested`,
				request.status === 200 &&
					request.json?.needsApproval?.[0]?.callId === first.callId &&
					asked?.length === 1 &&
					asked[0].callId === first.callId &&
					asked[0].tool === 'write_file' &&
					!existsSync(join(notes, `note-${run}.txt`)),
				`webhook HTTP ${request.status} ${request.text.slice(0, 300)}; execution ${waiting?.id}: ${waiting?.status}; asked ${JSON.stringify(asked)}`,
			);
			if (waiting?.status !== 'waiting') continue;
			// The example answers with the calls to decide and where to post the decisions; the answer
			// to that POST is the model's answer, or the next calls to decide.
			let asking = request;
			for (const [index, decision] of decisions.entries()) {
				if (index > 0) {
					// The answer comes as Ask for Approval runs, a moment before the execution waits
					// again; a POST in that moment is refused (409, running already), as n8n refuses any.
					await executionWith(n8n, workflowId, run, 'waiting', limit);
					results.check(
						`approval: run ${run}, a second call within the execution asks the person again, in the answer to their POST`,
						asking.status === 200 &&
							asking.json?.needsApproval?.[0]?.callId === decision.callId &&
							typeof asking.json?.decide === 'string',
						`HTTP ${asking.status} ${asking.text.slice(0, 300)}`,
					);
				}
				const decide =
					typeof asking.json?.decide === 'string'
						? asking.json.decide
						: `${n8n.baseUrl}/webhook-waiting/${waiting.id}`;
				asking = await send(
					decide,
					{
						method: 'POST',
						headers: { 'content-type': 'application/json' },
						body: JSON.stringify({ decisions: [decision] }),
					},
					limit,
				);
			}
			const ended = await executionWith(n8n, workflowId, run, 'success', limit);
			const written = ['note-1.txt', 'note-1b.txt', 'note-2.txt'].filter((file) =>
				existsSync(join(notes, file)),
			);
			const what = first.approved ? 'approved' : 'declined';
			results.check(
				`approval: run ${run}, ${what} through the execution's resume URL, ends with the model's answer (the answer to the person's last POST)${first.approved ? ' and the files written' : ' and no file'}`,
				asking.status === 200 &&
					asking.json?.answer === answer &&
					ended?.status === 'success' &&
					// The approved run wrote both of its notes, the declined one none.
					written.join() === 'note-1.txt,note-1b.txt',
				`resume HTTP ${asking.status} ${asking.text.slice(0, 200)}; execution ${ended?.id}: ${ended?.status}; files written: ${written.join(', ')}`,
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
		requests.length === 5 &&
			/^Successfully wrote/.test(String(toolMessage(1))) &&
			/^Successfully wrote/.test(String(toolMessage(2))) &&
			/^A person \(e2e@example.com\) declined this call.*No new notes today\./.test(
				String(toolMessage(4)),
			),
		`${requests.length} model requests; after approval: ${JSON.stringify(toolMessage(1))}, ${JSON.stringify(toolMessage(2))}; after declining: ${JSON.stringify(toolMessage(4))}`,
	);
	return workflowId;
}
