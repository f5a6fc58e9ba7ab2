/**
 * `n8n start` with the examples published: the webhook agent called over HTTP, what the editor
 * asks of the package over REST, the scheduled example (its imported copy every 10 s, on the real
 * MCP filesystem server), the editor in Chromium, and a remote MCP server behind OAuth 2.1. Then
 * n8n is stopped as an operator would (SIGTERM), and nothing of the run may be left running.
 */
import {
	copyFileSync,
	existsSync,
	mkdirSync,
	readdirSync,
	readFileSync,
	rmSync,
	writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { type RunContext, type StandIn } from '../context.ts';
import { freePort, PROJECT_ROOT } from '../n8n.ts';
import { callWebhook, rest, signIn, type Loose } from '../n8nRest.ts';
import type { RunningN8n } from '../phase.ts';
import { runProcesses, showLogTail, startInGroup, stopGroup, exitOf } from '../processes.ts';
import {
	checkLogs,
	everythingCredential,
	openAiCredential,
	stdioCredential,
	type McpServers,
} from './credentials.ts';
import { approvalPhase } from './approval.ts';
import { chatPhase } from './chat.ts';
import { oauthPhase } from './oauth.ts';
import { clientCredentialsPhase } from './clientCredentials.ts';
import { workflowToolsPhase } from './workflowTools.ts';

export interface ServedOptions {
	servers: McpServers;
	/** The Chromium to drive, or undefined to leave the browser out. */
	chromium?: string;
	updateDocs: boolean;
	/** Run the chat example (e2e/phases/chat.ts). */
	chat: boolean;
}

const ARTIFACTS = join(PROJECT_ROOT, 'e2e/artifacts');
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function servedPhases(ctx: RunContext, options: ServedOptions): Promise<void> {
	const { results } = ctx;
	results.phase('run the webhook agent (n8n start)');
	const port = await freePort();
	ctx.n8nEnv = { ...ctx.n8nEnv, N8N_PORT: String(port) };
	const filesFolder = ctx.n8nEnv.N8N_RESTRICT_FILE_ACCESS_TO!;
	// The scheduled example and the editor's run of the loop get model stand-ins and credentials of
	// their own (each stand-in serves one scripted conversation), imported before n8n starts.
	const inbox = join(ctx.runDir, 'inbox');
	mkdirSync(inbox, { recursive: true });
	mkdirSync(join(filesFolder, 'summaries'), { recursive: true });
	writeFileSync(join(inbox, 'standup.md'), '# Standup\nThe release ships on Friday.\n');
	writeFileSync(join(inbox, 'todo.md'), '# Todo\n- screenshots for the docs\n');
	const standIns: Array<StandIn | undefined> = [];
	try {
		const schedule = await ctx.standIn('schedule', 'schedule', ['--inbox', inbox]);
		if (!schedule)
			results.fail('the stand-in for the scheduled example starts', 'no state file after 20 s');
		let chromium = options.chromium;
		const editor = chromium ? await ctx.standIn('loop', 'editor') : undefined;
		if (chromium && !editor) {
			results.fail("the stand-in for the editor's run starts", 'no state file after 20 s');
			chromium = undefined;
		}
		const webhook = await ctx.standIn('webhook');
		standIns.push(schedule, editor, webhook);
		if (!webhook) {
			results.fail('the stand-in starts', 'no state file after 20 s');
			return;
		}
		const webhookCredentials = ctx.writeCredentials('webhook', [
			everythingCredential(ctx, options.servers),
			openAiCredential(ctx, 'openAi', 'OpenAI', webhook.baseUrl),
		]);
		const imported =
			(await ctx.importFile(
				'credentials',
				'the credentials (webhook model)',
				webhookCredentials,
			)) &&
			(await ctx.importFile(
				'workflow',
				'the webhook workflow',
				ctx.writeWorkflow('webhook-agent.json', 'e2eWebhookAgent'),
			)) &&
			(await ctx.publish('the webhook workflow', 'e2eWebhookAgent'));
		if (!imported) return;

		let scheduled = schedule !== undefined;
		if (scheduled || chromium) {
			const more = ctx.writeCredentials('more', [
				openAiCredential(
					ctx,
					'openAiEditor',
					'OpenAI (editor run)',
					editor?.baseUrl ?? 'http://127.0.0.1:9/v1',
				),
				openAiCredential(
					ctx,
					'openAiSchedule',
					'OpenAI (scheduled)',
					schedule?.baseUrl ?? 'http://127.0.0.1:9/v1',
				),
				stdioCredential(ctx, 'mcpInbox', 'MCP filesystem: inbox', options.servers.filesystem, [
					inbox,
				]),
			]);
			if (
				!(await ctx.importFile(
					'credentials',
					'the credentials (scheduled example, editor run)',
					more,
				))
			) {
				scheduled = false;
				chromium = undefined;
			}
		}
		if (scheduled) {
			// Only the imported copy changes: every 10 seconds instead of every morning, its own
			// credentials, and the summary written under this run's n8n-files folder.
			const workflow = ctx.writeWorkflow(
				'scheduled-inbox-summary.json',
				'e2eScheduledInbox',
				(copy) => {
					copy.node('n8n-nodes-base.scheduleTrigger').parameters.rule = {
						interval: [{ field: 'seconds', secondsInterval: 10 }],
					};
					copy.useCredential('openAiCompatibleApi', 'openAiSchedule', 'OpenAI (scheduled)');
					copy.useCredential('mcpStdioServerApi', 'mcpInbox', 'MCP filesystem: inbox');
					const write = copy.node('n8n-nodes-base.readWriteFile').parameters;
					if (!write.fileName.includes('/home/node/.n8n-files/'))
						throw new Error(`unexpected file name ${write.fileName}`);
					write.fileName = write.fileName.replace('/home/node/.n8n-files/', `${filesFolder}/`);
				},
			);
			scheduled =
				(await ctx.importFile('workflow', 'the scheduled example', workflow)) &&
				(await ctx.publish('the scheduled example', 'e2eScheduledInbox'));
		}
		if (chromium) {
			const workflow = ctx.writeWorkflow('mcp-tool-loop.json', 'e2eEditorLoop', (copy) =>
				copy.useCredential('openAiCompatibleApi', 'openAiEditor', 'OpenAI (editor run)'),
			);
			if (!(await ctx.importFile('workflow', 'the loop example for the editor', workflow)))
				chromium = undefined;
		}

		const startLog = join(ctx.logs, 'n8n-start.log');
		ctx.n8nLogs.push(startLog);
		ctx.lastN8nLog = '';
		const n8n = startInGroup(startLog, ctx.n8nBin, ['start'], {
			cwd: ctx.runDir,
			env: ctx.marked(ctx.n8nEnv),
		});
		const base = `http://127.0.0.1:${port}`;
		const ready = await untilReady(n8n.pid!, base, startLog, 180 * ctx.scale);
		if (ready === undefined) {
			results.fail(
				'n8n start serves /healthz',
				`not ready within ${180 * ctx.scale}s${n8n.exitCode !== null ? ' (n8n exited)' : ''}`,
			);
			showLogTail(startLog, 60);
		} else {
			results.pass(`n8n start serves /healthz on 127.0.0.1:${port} (after ${ready}s)`);
			await webhookChecks(ctx, base, webhook);
			if (scheduled) {
				results.phase('the scheduled example (n8n start)');
				await waitForScheduledRun(ctx, base, 'e2eScheduledInbox', 90);
			}
			const running: RunningN8n = {
				baseUrl: base,
				cookie: await signIn(base),
				userFolder: ctx.n8nEnv.N8N_USER_FOLDER!,
			};
			results.phase('a person approves a tool call (n8n start)');
			const approvalWorkflow = await approvalPhase(ctx, running, options.servers);
			if (options.chat) {
				results.phase('a chat with memory, streamed (n8n start)');
				await chatPhase(ctx, running, { ...options, chromium });
			}
			results.phase('n8n workflows as tools (n8n start)');
			const workflowTools = await workflowToolsPhase(ctx, running, options.servers);
			if (chromium && editor) {
				results.phase('the editor in a browser (Chromium)');
				await browserChecks(
					ctx,
					base,
					chromium,
					editor,
					{ scheduled, approvalWorkflow, workflowTools },
					options.updateDocs,
					startLog,
				);
			}
			results.phase('a remote MCP server behind OAuth 2.1 (n8n start)');
			await oauthPhase(ctx.phaseRun('oauth'), running);
			results.phase('a scheduled workflow with client credentials, nobody signing in (n8n start)');
			await clientCredentialsPhase(ctx.phaseRun('client-credentials'), running);
		}

		results.phase('stop n8n');
		// Stop n8n as an operator would (SIGTERM) and see it go, MCP servers included.
		const stoppingAt = Date.now();
		const stopped = await stopGroup(n8n.pid, 45);
		results.check(
			`n8n start stopped on SIGTERM, with everything it started${stopped ? ` (in ${Math.round((Date.now() - stoppingAt) / 1000)} s)` : ''}`,
			stopped,
			'still running after 45 s: killed',
		);
		await exitOf(n8n, 5_000);
		await ctx.stopStandIn(webhook);
		if (schedule) {
			await ctx.stopStandIn(schedule);
			if (ready !== undefined && scheduled)
				checkScheduledResult(ctx, schedule, filesFolder, startLog);
		}
		checkLogs(ctx, 'n8n start');
		const leftovers = runProcesses(ctx.runId).filter((line) => !line.includes('e2e/main.ts'));
		results.check(
			'no MCP server process outlived n8n start',
			leftovers.length === 0,
			leftovers.join(';'),
		);
	} finally {
		for (const standIn of standIns) await ctx.stopStandIn(standIn);
	}
}

/** Seconds until n8n serves /healthz and says its editor is up; undefined when it did not. */
async function untilReady(
	pid: number,
	base: string,
	log: string,
	limitS: number,
): Promise<number | undefined> {
	const started = Date.now();
	while (Date.now() - started < limitS * 1000) {
		try {
			process.kill(pid, 0);
		} catch {
			return undefined;
		}
		const healthy = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(2_000) })
			.then((response) => response.ok)
			.catch(() => false);
		if (healthy && readFileSync(log, 'utf8').includes('Editor is now accessible')) {
			return Math.round((Date.now() - started) / 1000);
		}
		await sleep(1_000);
	}
	return undefined;
}

/** The webhook agent over HTTP, then what the editor asks of the package over REST. */
async function webhookChecks(ctx: RunContext, base: string, webhook: StandIn): Promise<void> {
	const n8n = { baseUrl: base, cookie: '', userFolder: '' };
	// The webhook is registered while n8n activates published workflows: callWebhook retries a 404.
	const reply = await callWebhook(
		n8n,
		'ask',
		{ question: 'What is 1.5 + 2.25?' },
		120_000 * ctx.scale,
	).catch((error: Error) => ({ status: 0, text: error.message }));
	const replyFile = join(ctx.runDir, 'webhook-reply.json');
	writeFileSync(replyFile, reply.text);
	// The editor's side, while n8n, the MCP server and the stand-in are up.
	await ctx.checker('e2e/check.ts', [
		'editor',
		'--base',
		base,
		'--credentials',
		join(ctx.runDir, 'credentials-webhook.json'),
		'--types',
		join(ctx.n8nEnv.N8N_USER_FOLDER!, '.cache/n8n/public/types'),
	]);
	await ctx.stopStandIn(webhook);
	await ctx.checker('e2e/check.ts', [
		'webhook',
		'--response',
		replyFile,
		'--status',
		String(reply.status),
		'--standin',
		webhook.state,
		'--api-key',
		ctx.apiKey,
	]);
}

/** Polls n8n for executions of a workflow until one has finished; passes when one succeeded. */
async function waitForScheduledRun(
	ctx: RunContext,
	base: string,
	workflowId: string,
	limitS: number,
): Promise<void> {
	const name = 'scheduled: a run of the published example succeeded';
	let cookie: string;
	try {
		cookie = await signIn(base);
	} catch (error) {
		ctx.results.fail(name, (error as Error).message);
		return;
	}
	const n8n = { baseUrl: base, cookie, userFolder: '' };
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const started = Date.now();
	while (Date.now() - started < limitS * ctx.scale * 1000) {
		const listed = await rest(n8n, 'GET', `/rest/executions?filter=${filter}`).catch(
			() => undefined,
		);
		const executions: Loose[] = listed?.json?.data?.results ?? [];
		const ended = executions.filter(
			(execution) => !['new', 'running', 'waiting'].includes(execution.status),
		);
		const ok = ended.filter((execution) => execution.status === 'success');
		const seconds = Math.round((Date.now() - started) / 1000);
		if (ok.length > 0) {
			const took = Date.parse(ok[0].stoppedAt) - Date.parse(ok[0].startedAt);
			ctx.results.pass(
				`${name} (${ok.length} of ${executions.length} (mode ${ok[0].mode}, ${took} ms), seen after ${seconds} s)`,
			);
			return;
		}
		if (ended.length > 0) {
			ctx.results.fail(
				name,
				ended.map((execution) => `execution ${execution.id}: ${execution.status}`).join(', '),
			);
			return;
		}
		await sleep(2_000);
	}
	ctx.results.fail(name, `no run ended within ${limitS * ctx.scale}s`);
}

/**
 * What the scheduled runs did: the stand-in's record of the conversation (the real MCP filesystem
 * server's answers went back to the model) and the summary file written.
 */
function checkScheduledResult(
	ctx: RunContext,
	schedule: StandIn,
	filesFolder: string,
	startLog: string,
): void {
	const before = ctx.results.failed;
	let state: Loose;
	try {
		state = JSON.parse(readFileSync(schedule.state, 'utf8'));
	} catch (error) {
		ctx.results.fail("scheduled: the stand-in's record could be read", (error as Error).message);
		return;
	}
	const calls = (state.requests ?? []).filter(
		(request: Loose) =>
			request.method === 'POST' && request.path.startsWith('/v1/chat/completions'),
	);
	const toolResults: string[] = calls.flatMap((request: Loose) =>
		(request.body?.messages ?? [])
			.filter((message: Loose) => message.role === 'tool')
			.map((message: Loose) => String(message.content)),
	);
	ctx.results.check(
		'scheduled: the model got the inbox listing and a note from the real MCP filesystem server',
		toolResults.some((content) => content.includes('standup.md') && content.includes('todo.md')) &&
			toolResults.some((content) => content.includes('The release ships on Friday.')),
		`tool results the model saw: ${JSON.stringify(toolResults).slice(0, 400)}`,
	);
	const folder = join(filesFolder, 'summaries');
	const files = existsSync(folder)
		? readdirSync(folder).filter((file) => /^inbox-\d{4}-\d{2}-\d{2}\.txt$/.test(file))
		: [];
	const text = files.length > 0 ? readFileSync(join(folder, files[0]), 'utf8') : undefined;
	ctx.results.check(
		"scheduled: the summary file holds the model's answer",
		text === state.answer,
		files.length > 0
			? `${files[0]} holds ${JSON.stringify(text!.slice(0, 200))}`
			: `no inbox-DATE.txt in ${folder}`,
	);
	if (ctx.results.failed > before) showLogTail(startLog, 40);
}

/**
 * The editor in Chromium (e2e/browser.ts), then what the model stand-in saw of the editor's run.
 * Screenshots in e2e/artifacts/; with E2E_UPDATE_DOCS=1 the README's go to docs/.
 */
async function browserChecks(
	ctx: RunContext,
	base: string,
	chromium: string,
	editor: StandIn,
	workflows: { scheduled: boolean; approvalWorkflow?: string; workflowTools?: string },
	updateDocs: boolean,
	startLog: string,
): Promise<void> {
	const before = ctx.results.failed;
	mkdirSync(ARTIFACTS, { recursive: true });
	for (const file of readdirSync(ARTIFACTS).filter((name) => name.endsWith('.png')))
		rmSync(join(ARTIFACTS, file));
	await ctx.checker(
		'e2e/browser.ts',
		[
			'--base',
			base,
			'--workflow',
			'e2eEditorLoop',
			'--standin',
			editor.state,
			'--api-key',
			ctx.apiKey,
			'--artifacts',
			ARTIFACTS,
			'--chromium',
			chromium,
			'--scale',
			String(ctx.scale),
			...(workflows.scheduled ? ['--scheduled', 'e2eScheduledInbox'] : []),
			...(workflows.approvalWorkflow ? ['--approval', workflows.approvalWorkflow] : []),
			...(workflows.workflowTools ? ['--workflow-tools', workflows.workflowTools] : []),
		],
		{ name: 'browser', limitS: 600 },
	);
	await ctx.stopStandIn(editor);
	const state = JSON.parse(readFileSync(editor.state, 'utf8')) as Loose;
	const calls = (state.requests ?? []).filter(
		(request: Loose) =>
			request.method === 'POST' && request.path.startsWith('/v1/chat/completions'),
	);
	ctx.results.check(
		'browser: the run from the editor had its 3 model turns',
		calls.length === 3 && state.remaining === 0,
		`${calls.length} requests, ${state.remaining} scripted turns left`,
	);
	if (ctx.results.failed > before) {
		const failures = readdirSync(ARTIFACTS).filter((name) => name.startsWith('failure-'));
		console.error(
			`    screenshots of the failures: ${failures.map((name) => `e2e/artifacts/${name}`).join(' ')}`,
		);
		showLogTail(startLog, 40);
	} else if (updateDocs) {
		const shown = {
			'editor-loop.png': 'editor-loop.png',
			'editor-model-output.png': 'editor-node-output.png',
			'approval-agent.png': 'approval-agent.png',
			'workflow-tools-agent.png': 'workflow-tools-agent.png',
		};
		for (const [artifact, doc] of Object.entries(shown)) {
			if (existsSync(join(ARTIFACTS, artifact)))
				copyFileSync(join(ARTIFACTS, artifact), join(PROJECT_ROOT, 'docs', doc));
		}
		console.log(`    copied to docs/: ${Object.values(shown).join(', ')}`);
	}
}
