/**
 * examples/chat-agent.json in n8n: a chat whose answers stream, its memory kept in a Data table.
 * Its credentials are created and the example published through n8n's REST API; the model is the
 * labelled local stand-in (e2e/standin.ts, scenario `chat`: Chat Completions, streamed a frame at a
 * time), the tools those of the real MCP everything server over stdio. Messages go to the Chat
 * Trigger's webhook as n8n's chat widget sends them, and each answer is read as the raw HTTP
 * stream n8n writes (one JSON line per chunk):
 *   - a session of three messages: each streams (its first chunk comes before the execution ends,
 *     more follow), the chunks of the Model's last run joined are the answer the execution stored,
 *     and message 3 is answered from message 1's tool result, which its model request carries;
 *   - two sessions at once stay apart, in the model's requests and in the table's rows;
 *   - n8n's hosted chat page in Chromium (e2e/chatPage.ts).
 * In queue mode (chatInQueue) the session runs on the workers, streamed through the main.
 */
import { copyFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunContext, StandIn } from '../context.ts';
import { memoryCost } from '../chatMemoryCost.ts';
import { N8N_BIN, PROJECT_ROOT, randomHex } from '../n8n.ts';
import {
	cookiesOf,
	createCredential,
	executionData,
	executionsOf,
	OWNER,
	publishWorkflow,
	send,
	signIn,
	type Loose,
} from '../n8nRest.ts';
import type { RunningN8n } from '../phase.ts';
import {
	MODEL,
	registered,
	sendMessage,
	streamVerdict,
	type Said,
	type Stored,
} from '../chatStream.ts';
import { checkRequests, checkRows } from '../chatChecks.ts';
import { everythingCredential, openAiCredential, type McpServers } from './credentials.ts';

const TRIGGER = 'When chat message received';
const SAVE = 'Save Conversation';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The stand-in's answers (e2e/standin.ts, `chat`) with the real server's tool results in them. */
const recall = (sum: string) => `Earlier the get-sum tool said: ${sum}`;
const SESSION: Said[] = [
	{
		says: 'What is 17 + 25?',
		answer: '17 + 25 = 42. I will remember that.',
		tool: 'The sum of 17 and 25 is 42.',
	},
	{
		says: 'Echo memory is kept',
		answer: 'The echo tool answered: Echo: memory is kept',
		tool: 'Echo: memory is kept',
	},
	{
		says: 'Which sum did you work out earlier?',
		answer: recall('The sum of 17 and 25 is 42.'),
		tool: '',
	},
];
const sumSession = (a: number, b: number): Said[] => [
	{
		says: `What is ${a} + ${b}?`,
		answer: `${a} + ${b} = ${a + b}. I will remember that.`,
		tool: `The sum of ${a} and ${b} is ${a + b}.`,
	},
	{ ...SESSION[2], answer: recall(`The sum of ${a} and ${b} is ${a + b}.`) },
];
/** The two sessions run at once, and the one the hosted chat page holds. */
const TOGETHER = [sumSession(2, 3), sumSession(100, 11)];
const PAGE = sumSession(5, 8);

export interface ChatOptions {
	servers: McpServers;
	/** The Chromium for the hosted chat page; undefined leaves the page out. */
	chromium?: string;
	updateDocs: boolean;
}

interface Chat {
	n8n: RunningN8n;
	workflowId: string;
	/** The Chat Trigger's URL: its hosted page on GET, messages on POST. */
	url: string;
	/** What `check` prefixes its names with. */
	label: string;
	limitMs: number;
	/** Executions already looked at. */
	seen: Set<string>;
}

/** The example in `n8n start`: one session, two at once, the hosted page. */
export async function chatPhase(
	ctx: RunContext,
	n8n: RunningN8n,
	options: ChatOptions,
): Promise<void> {
	const standIn = await ctx.standIn('chat');
	if (!standIn) return ctx.results.fail('chat: the stand-in starts', 'no state file after 20 s');
	const sessions: Said[][] = [SESSION, ...TOGETHER];
	try {
		const chat = await publishChat(ctx, n8n, options.servers, standIn, 'chat');
		if (!chat) return;
		const sessionId = `e2e-${randomHex(6)}`;
		await runSession(ctx, chat, sessionId, SESSION);
		await checkRows(ctx, chat.n8n, chat.label, new Map([[sessionId, SESSION]]));
		await runTogether(ctx, chat);
		// Measured on the pinned n8n only: the run on the newest release checks behaviour.
		if (ctx.n8nBin === N8N_BIN) sessions.push(await longSession(ctx, chat));
		if (options.chromium) {
			await pageChecks(ctx, chat, options.chromium, options.updateDocs);
			sessions.push(PAGE);
		}
	} catch (error) {
		ctx.results.fail('chat: the sessions ran', (error as Error).message);
	} finally {
		await ctx.stopStandIn(standIn);
	}
	checkRequests(ctx, 'chat', standIn, sessions, SESSION);
}

/** The example on a queue-mode main and its workers (their logs name the executions they ran). */
export async function chatInQueue(
	ctx: RunContext,
	baseUrl: string,
	workers: Array<{ name: string; log: string }>,
	servers: McpServers,
): Promise<void> {
	const label = 'queue mode: chat';
	const standIn = await ctx.standIn('chat', 'queue-chat');
	if (!standIn) return ctx.results.fail(`${label}: the stand-in starts`, 'no state file');
	const session = [...SESSION];
	try {
		const n8n = { baseUrl, cookie: await ownerCookie(baseUrl), userFolder: '' };
		const chat = await publishChat(ctx, n8n, servers, standIn, label);
		if (!chat) return;
		const sessionId = `e2e-queue-${randomHex(6)}`;
		const ids = await runSession(ctx, chat, sessionId, session);
		// Each worker's log names the executions it ran (the main's only enqueues them).
		const workerOf = (id: string) => {
			const named = workers.filter(({ log }) =>
				[...readFileSync(log, 'utf8').matchAll(/Worker started execution (\d+)/g)].some(
					(match) => match[1] === id,
				),
			);
			return named.length === 1 ? named[0].name : `${named.length} workers`;
		};
		// Which worker takes a job is the queue's choice (the worker whose wait Redis answers first),
		// so three messages may all run on one: the session then goes on asking about the sum until a
		// message runs on another worker, at most five more.
		while (new Set(ids.map(workerOf)).size < 2 && session.length < SESSION.length + 5) {
			session.push(SESSION[2]);
			ids.push(...(await runSession(ctx, chat, sessionId, session, session.length - 1)));
		}
		await checkRows(ctx, chat.n8n, chat.label, new Map([[sessionId, session]]));
		const ranBy = ids.map(workerOf);
		const shown = ranBy.map((name, n) => `message ${n + 1} (execution ${ids[n]}): ${name}`);
		ctx.results.check(
			`${label}: the session's messages ran on the workers, memory carried from one worker to another (${shown.join(', ')})`,
			ranBy.every((name) => workers.some((worker) => worker.name === name)) &&
				ranBy.some((name, n) => n > 0 && name !== ranBy[n - 1]),
			shown.join('; '),
		);
	} catch (error) {
		ctx.results.fail(`${label}: the session ran`, (error as Error).message);
	} finally {
		await ctx.stopStandIn(standIn);
	}
	checkRequests(ctx, label, standIn, [session], SESSION);
}

/** The queue-mode main's owner, set up on its first start (nobody signed in there before). */
async function ownerCookie(baseUrl: string): Promise<string> {
	const setup = await send(
		`${baseUrl}/rest/owner/setup`,
		{
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ ...OWNER, firstName: 'End', lastName: 'ToEnd' }),
		},
		30_000,
	);
	return setup.status === 200 ? cookiesOf(setup) : signIn(baseUrl);
}

/** Creates the credentials and publishes the example through n8n's REST API. */
async function publishChat(
	ctx: RunContext,
	n8n: RunningN8n,
	servers: McpServers,
	standIn: StandIn,
	label: string,
): Promise<Chat | undefined> {
	const name = `${label}: the chat example published, its credentials created through n8n's REST API`;
	try {
		const everything = everythingCredential(ctx, servers);
		const model = openAiCredential(ctx, 'unused', 'OpenAI (chat)', standIn.baseUrl);
		const ids: Record<string, string> = {};
		for (const credential of [everything, model])
			ids[credential.type] = await createCredential(
				n8n,
				credential.name,
				credential.type,
				credential.data,
			);
		const example = JSON.parse(
			readFileSync(join(PROJECT_ROOT, 'examples/chat-agent.json'), 'utf8'),
		);
		for (const node of example.nodes)
			for (const type of Object.keys(node.credentials ?? {}))
				node.credentials[type] = { id: ids[type], name: type };
		const workflowId = await publishWorkflow(n8n, example);
		const trigger = example.nodes.find((node: Loose) => node.name === TRIGGER);
		const url = `${n8n.baseUrl}/webhook/${trigger.webhookId}/chat`;
		const page = await registered(() => send(url, { method: 'GET' }, 30_000));
		ctx.results.check(
			`${name}; its hosted chat page is served at /webhook/<id>/chat`,
			page.status === 200 && page.text.includes('createChat('),
			`GET ${url}: HTTP ${page.status} ${page.text.slice(0, 200)}`,
		);
		const limitMs = 90_000 * ctx.scale;
		return { n8n, workflowId, url, label, limitMs, seen: new Set() };
	} catch (error) {
		ctx.results.fail(name, (error as Error).message);
		return undefined;
	}
}

/** A message to the chat, tried again while n8n is still registering its webhook. */
const ask = (chat: Chat, sessionId: string, says: string) =>
	registered(() => sendMessage(chat.url, sessionId, says, chat.limitMs));

/** The workflow's executions not looked at before, once `count` of them have ended. */
async function newExecutions(chat: Chat, count: number): Promise<Stored[]> {
	const started = Date.now();
	for (;;) {
		const fresh = (await executionsOf(chat.n8n, chat.workflowId)).filter(
			(execution) => !chat.seen.has(String(execution.id)),
		);
		const ended = fresh.filter((execution) => !['new', 'running'].includes(execution.status));
		if (
			(fresh.length >= count && ended.length === fresh.length) ||
			Date.now() - started > chat.limitMs
		) {
			for (const { id } of ended) chat.seen.add(String(id));
			return Promise.all(ended.reverse().map((execution) => stored(chat, execution)));
		}
		await sleep(300);
	}
}

async function stored(chat: Chat, execution: Loose): Promise<Stored> {
	const data = await executionData(chat.n8n, String(execution.id));
	const runData = data?.resultData?.runData ?? {};
	const output = (node: string, run: number, index: number) =>
		runData[node]?.at(run)?.data?.main?.[index]?.[0]?.json;
	return {
		id: String(execution.id),
		status: execution.status,
		stoppedAt: Date.parse(execution.stoppedAt),
		sessionId: output(TRIGGER, 0, 0)?.sessionId,
		answer: output(MODEL, -1, 1)?.answer,
		lastModelRun: (runData[MODEL]?.length ?? 0) - 1,
		row: output(SAVE, 0, 0),
	};
}

/** A session's messages (from message `from` on) one after another; their executions' ids. */
async function runSession(
	ctx: RunContext,
	chat: Chat,
	sessionId: string,
	session: Said[],
	from = 0,
): Promise<string[]> {
	const ids: string[] = [];
	for (const [n, said] of session.entries()) {
		if (n < from) continue;
		const reply = await ask(chat, sessionId, said.says);
		const [execution] = await newExecutions(chat, 1);
		ids.push(execution?.id ?? '?');
		const { streamed, matches, figures } = streamVerdict(reply, execution, said, n + 1);
		const what = `${chat.label}: message ${n + 1} (${JSON.stringify(said.says)})`;
		ctx.results.check(
			`${what} streams as n8n's chunks of the Model's text, ${figures}`,
			streamed === true,
			String(streamed),
		);
		ctx.results.check(
			`${what}: the items of the Model's last run joined equal the answer the execution stored and Save's row (turn ${n + 1})`,
			matches === true,
			String(matches),
		);
	}
	return ids;
}

/** A session of 25 sums, its memory's cost measured (e2e/chatMemoryCost.ts). */
async function longSession(ctx: RunContext, chat: Chat): Promise<Said[]> {
	const session = Array.from({ length: 25 }, (_, n) => sumSession(n + 1, 2 * n + 1)[0]);
	const sessionId = `e2e-long-${randomHex(6)}`;
	await memoryCost(
		ctx,
		chat.n8n,
		chat.label,
		session.map(({ says }) => says),
		async (says) => {
			await ask(chat, sessionId, says);
			const [execution] = await newExecutions(chat, 1);
			return execution;
		},
	);
	return session;
}

/** Two sessions at once, each with two messages: each answered from its own memory. */
async function runTogether(ctx: RunContext, chat: Chat): Promise<void> {
	const ids = TOGETHER.map(() => `e2e-${randomHex(6)}`);
	const wrong: string[] = [];
	for (let turn = 0; turn < 2; turn++) {
		const replies = await Promise.all(
			TOGETHER.map((session, n) => ask(chat, ids[n], session[turn].says)),
		);
		const executions = await newExecutions(chat, TOGETHER.length);
		TOGETHER.forEach((session, n) => {
			const execution = executions.find((each) => each.sessionId === ids[n]);
			const { streamed, matches } = streamVerdict(replies[n], execution, session[turn], turn + 1);
			if (streamed !== true) wrong.push(`session ${n + 1}, message ${turn + 1}: ${streamed}`);
			if (matches !== true) wrong.push(`session ${n + 1}, message ${turn + 1}: ${matches}`);
		});
	}
	ctx.results.check(
		`${chat.label}: two sessions at once, two messages each: every answer streamed and is its own session's (${TOGETHER.map((session) => JSON.stringify(session[1].answer)).join(', ')})`,
		wrong.length === 0,
		wrong.join('; '),
	);
	await checkRows(ctx, chat.n8n, chat.label, new Map(ids.map((id, n) => [id, TOGETHER[n]])));
}

/** n8n's hosted chat page in Chromium (e2e/chatPage.ts); its screenshot to docs/ when asked. */
async function pageChecks(
	ctx: RunContext,
	chat: Chat,
	chromium: string,
	updateDocs: boolean,
): Promise<void> {
	const artifacts = join(PROJECT_ROOT, 'e2e/artifacts');
	mkdirSync(artifacts, { recursive: true });
	const screenshot = join(artifacts, 'chat-agent.png');
	const before = ctx.results.failed;
	await ctx.checker(
		'e2e/chatPage.ts',
		[
			...['--url', chat.url, '--chromium', chromium, '--screenshot', screenshot],
			...PAGE.flatMap(({ says, answer }) => ['--message', says, '--answer', answer]),
			...['--scale', String(ctx.scale)],
		],
		{ name: 'chat-page', limitS: 300 },
	);
	if (updateDocs && ctx.results.failed === before && existsSync(screenshot)) {
		copyFileSync(screenshot, join(PROJECT_ROOT, 'docs/chat-agent.png'));
		console.log('    copied to docs/: chat-agent.png');
	}
}
