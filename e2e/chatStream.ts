/**
 * A chat's messages as n8n's chat widget sends them to a Chat Trigger, and its answers as n8n
 * streams them back (one JSON line per chunk: begin, item, end, error, with the node, item and run
 * that sent it), read as they arrive; and the verdict on one answer against what its execution
 * stored. Used by e2e/phases/chat.ts.
 */
import { request as httpRequest } from 'node:http';
import type { Loose } from './n8nRest.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** The chat example's node whose text streams (examples/chat-agent.json). */
export const MODEL = 'Model';
/** The node that tells the person what the answer cost, in a message of its own. */
export const SAVE = 'Save Conversation';

/** A person's message, and what the stand-in and the MCP server answer to it. */
export interface Said {
	says: string;
	answer: string;
	/** The real server's answer to the tool call the message makes. */
	tool: string;
}

/** One chunk n8n streamed, with the time its line arrived. */
export interface Chunk {
	type: string;
	content?: string;
	metadata?: { nodeName?: string; runIndex?: number };
	at: number;
}

/** An answer as it came: its status, its chunks, when it was sent and when it ended. */
export interface Streamed {
	status: number;
	chunks: Chunk[];
	/** Lines that were not chunks (n8n's keepalive lines are left out). */
	other: string[];
	sentAt: number;
	endedAt: number;
	error?: string;
}

/** A webhook call, tried again while n8n is still registering the webhook just published (404). */
export async function registered<T extends { status: number }>(call: () => Promise<T>): Promise<T> {
	for (let attempt = 0; ; attempt++) {
		const reply = await call();
		if (reply.status !== 404 || attempt >= 20) return reply;
		await sleep(500);
	}
}

/**
 * A message POSTed to a Chat Trigger as n8n's chat widget sends it, the answer read as it comes
 * (node:http, not a buffering client), each JSON line timed as it arrives.
 */
export function sendMessage(
	url: string,
	sessionId: string,
	chatInput: string,
	limitMs: number,
): Promise<Streamed> {
	const body = JSON.stringify({ action: 'sendMessage', sessionId, chatInput });
	const reply: Streamed = { status: 0, chunks: [], other: [], sentAt: Date.now(), endedAt: 0 };
	const take = (line: string, at: number) => {
		if (line.trim() === '') return;
		try {
			const chunk = JSON.parse(line);
			if (chunk?.type === 'keepalive') return;
			if (typeof chunk?.type === 'string') return void reply.chunks.push({ ...chunk, at });
		} catch {
			// Not JSON: kept as it came, for the verdict.
		}
		reply.other.push(line.slice(0, 300));
	};
	return new Promise((resolve) => {
		const done = (error?: Error) => {
			reply.endedAt = Date.now();
			if (error) reply.error = error.message;
			resolve(reply);
		};
		const sending = httpRequest(
			url,
			{
				method: 'POST',
				headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
				timeout: limitMs,
			},
			(response) => {
				reply.status = response.statusCode ?? 0;
				response.setEncoding('utf8');
				let partial = '';
				response.on('data', (text: string) => {
					const at = Date.now();
					const lines = (partial + text).split('\n');
					partial = lines.pop()!;
					for (const line of lines) take(line, at);
				});
				response.on('end', () => {
					take(partial, Date.now());
					done();
				});
				response.on('error', done);
			},
		);
		sending.on('timeout', () => sending.destroy(new Error(`no end within ${limitMs} ms`)));
		sending.on('error', done);
		sending.end(body);
	});
}

/** What an execution stored of the parts checked here. */
export interface Stored {
	id: string;
	status: string;
	stoppedAt: number;
	sessionId?: string;
	/** The Model's final item's answer, and the run it came from. */
	answer?: string;
	lastModelRun: number;
	/** The row Save Conversation made for the Data table. */
	row?: Loose;
}

/**
 * Whether a message's answer streamed as it should: only the Model and Save sent chunks, each of
 * their runs with text a begin, items and an end (Save's one message saying what the answer cost);
 * the first item came before the response and the execution ended, more after it; the Model's last
 * run's items joined are the answer stored and Save's row's.
 */
export function streamVerdict(
	reply: Streamed,
	execution: Stored | undefined,
	expected: Said,
	turn: number,
): { streamed: true | string; matches: true | string; figures: string } {
	// A chat message per node run, as n8n's chat widget groups them.
	const runOf = (node: string | undefined, run: number | undefined) => `${node}#${run ?? -1}`;
	const runs = new Map<string, Chunk[]>();
	for (const chunk of reply.chunks) {
		const run = runOf(chunk.metadata?.nodeName, chunk.metadata?.runIndex);
		runs.set(run, [...(runs.get(run) ?? []), chunk]);
	}
	const items = reply.chunks.filter((chunk) => chunk.type === 'item');
	const first = items[0];
	const after = items.filter((chunk) => first && chunk.at > first.at).length;
	const figures = first
		? `first item ${first.at - reply.sentAt} ms after sending, ${reply.endedAt - first.at} ms before the response ended and ${(execution?.stoppedAt ?? NaN) - first.at} ms before the execution stopped, ${after} items arriving after it`
		: 'no item';
	const shapes = [...runs].map(
		([run, chunks]) => `run ${run}: ${chunks.map((c) => c.type).join(',')}`,
	);
	const badRun = [...runs.values()].some(
		(chunks) =>
			!/^begin(,item)+,end$/.test(chunks.map((chunk) => chunk.type).join(',')) ||
			chunks.some((chunk) => ![MODEL, SAVE].includes(chunk.metadata?.nodeName ?? '')),
	);
	const costSaid = (runs.get(runOf(SAVE, 0)) ?? [])
		.filter((chunk) => chunk.type === 'item')
		.map((chunk) => chunk.content)
		.join('');
	const streamed =
		reply.status !== 200 || reply.error || reply.other.length > 0
			? `HTTP ${reply.status} ${reply.error ?? ''} ${reply.other.join(' | ')}`
			: badRun || !first
				? `chunks: ${shapes.join('; ') || 'none'}`
				: !execution || execution.status !== 'success'
					? `execution ${execution?.id}: ${execution?.status}`
					: first.at < reply.endedAt && first.at < execution.stoppedAt && after > 0
						? true
						: figures;
	const lastRun = runs.get(runOf(MODEL, execution?.lastModelRun ?? -2)) ?? [];
	const joined = lastRun
		.filter((chunk) => chunk.type === 'item')
		.map((chunk) => chunk.content)
		.join('');
	const rowMessages: Loose[] = (() => {
		try {
			return JSON.parse(execution?.row?.messages);
		} catch {
			return [];
		}
	})();
	const rowAnswer = rowMessages.at(-1)?.content;
	const matches =
		joined === expected.answer &&
		execution?.answer === joined &&
		rowAnswer === joined &&
		rowMessages[0]?.content === expected.says &&
		execution?.row?.turn === turn &&
		execution?.row?.sessionId === execution?.sessionId &&
		/^This answer: \d+ model calls?, .*\. The session so far: /.test(costSaid)
			? true
			: `streamed ${JSON.stringify(joined)}, its cost ${JSON.stringify(costSaid)} (Model run ${execution?.lastModelRun}; ${shapes.join('; ')}); stored ${JSON.stringify(execution?.answer)}; Save's row: turn ${execution?.row?.turn}, answer ${JSON.stringify(rowAnswer)}; expected ${JSON.stringify(expected.answer)}`;
	return { streamed, matches, figures };
}
