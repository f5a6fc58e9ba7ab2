/**
 * What the chat example left behind, checked after its messages (e2e/phases/chat.ts): the rows of
 * its memory table, and the requests the model stand-in received.
 */
import { readFileSync } from 'node:fs';
import type { Said } from './chatStream.ts';
import type { RunContext, StandIn } from './context.ts';
import { rest, type Loose } from './n8nRest.ts';
import type { RunningN8n } from './phase.ts';

const TABLE = 'chat_memory';

/** The rows of the memory table, read through n8n's REST API for data tables. */
async function tableRows(n8n: RunningN8n): Promise<Loose[]> {
	const tables = await rest(n8n, 'GET', '/rest/data-tables-global?take=100');
	const listed: Loose[] = tables.json?.data?.data ?? tables.json?.data ?? [];
	const table = listed.find((each) => each.name === TABLE);
	if (!table)
		throw new Error(`no table ${TABLE}: HTTP ${tables.status} ${tables.text.slice(0, 200)}`);
	const path = `/rest/projects/${table.projectId}/data-tables/${table.id}/rows?take=1000`;
	const rows = await rest(n8n, 'GET', path);
	const data = rows.json?.data?.data;
	if (!Array.isArray(data))
		throw new Error(`GET ${path}: HTTP ${rows.status} ${rows.text.slice(0, 200)}`);
	return data;
}

/** Each session's rows: one per message, turns 1, 2, …, each the message and its answer. */
export async function checkRows(
	ctx: RunContext,
	n8n: RunningN8n,
	label: string,
	sessions: Map<string, Said[]>,
): Promise<void> {
	const name = `${label}: the Data table ${TABLE} (read through n8n's REST API) holds a row per message of ${sessions.size === 1 ? 'the session' : 'each session'}, turn by turn, with that message and its answer`;
	try {
		const rows = await tableRows(n8n);
		const wrong = [...sessions].flatMap(([id, session]) => {
			const own = rows
				.filter((row) => row.sessionId === id)
				.sort((a, b) => a.turn - b.turn)
				.map((row) => ({ turn: row.turn, messages: JSON.parse(row.messages) as Loose[] }));
			const fits =
				own.length === session.length &&
				own.every(
					({ turn, messages }, n) =>
						turn === n + 1 &&
						messages[0]?.content === session[n].says &&
						messages.at(-1)?.content === session[n].answer,
				);
			return fits
				? []
				: [
						`${id}: ${JSON.stringify(own.map(({ turn, messages }) => [turn, messages[0]?.content, messages.at(-1)?.content]))}`,
					];
		});
		ctx.results.check(name, wrong.length === 0, `${rows.length} rows; ${wrong.join('; ')}`);
	} catch (error) {
		ctx.results.fail(name, (error as Error).message);
	}
}

/**
 * What the model was sent: each request holds one session's messages only (its person's messages
 * a beginning of that session's, its tool results that session's), and message 3 of the first
 * session carries message 1's get-sum call and the real server's result.
 */
export function checkRequests(
	ctx: RunContext,
	label: string,
	standIn: StandIn,
	sessions: Said[][],
	/** The session whose third message is answered from its first one's tool result. */
	firstSession: Said[],
): void {
	let state: Loose;
	try {
		state = JSON.parse(readFileSync(standIn.state, 'utf8'));
	} catch (error) {
		return ctx.results.fail(
			`${label}: the stand-in's record could be read`,
			(error as Error).message,
		);
	}
	const requests: Loose[] = (state.requests ?? [])
		.filter(
			(request: Loose) => request.method === 'POST' && request.path.endsWith('/chat/completions'),
		)
		.map((request: Loose) => request.body?.messages ?? []);
	const ofRole = (messages: Loose[], role: string) =>
		messages.filter((message) => message.role === role).map((message) => String(message.content));
	const strays = requests.filter((messages) => {
		const users = ofRole(messages, 'user');
		const owner = sessions.filter((session) => users.every((said, n) => session[n]?.says === said));
		return (
			owner.length !== 1 ||
			ofRole(messages, 'tool').some((result) => !owner[0].some(({ tool }) => tool === result))
		);
	});
	ctx.results.check(
		`${label}: each of the model's ${requests.length} requests carries the messages and tool results of one session only`,
		strays.length === 0 && requests.length > 0,
		strays
			.map((messages) => JSON.stringify(ofRole(messages, 'user')))
			.slice(0, 3)
			.join('; '),
	);
	const [first, , last] = firstSession;
	const third = requests.find((messages) => {
		const users = ofRole(messages, 'user');
		return users[0] === first.says && users.at(-1) === last.says;
	});
	const at = (third ?? []).findIndex(
		(message: Loose) =>
			message.role === 'assistant' && message.tool_calls?.[0]?.function?.name === 'get-sum',
	);
	const call = third?.[at]?.tool_calls?.[0];
	const result = third?.[at + 1];
	const args = (() => {
		try {
			return JSON.parse(call?.function?.arguments);
		} catch {
			return undefined;
		}
	})();
	ctx.results.check(
		`${label}: message 3's model request carries message 1's get-sum call and, after it, the tool message with its result (${JSON.stringify(first.tool)})`,
		JSON.stringify(ofRole(third ?? [], 'user')) ===
			JSON.stringify(firstSession.map(({ says }) => says)) &&
			args?.a === 17 &&
			args?.b === 25 &&
			result?.role === 'tool' &&
			result.tool_call_id === call.id &&
			result.content === first.tool,
		`the request: ${JSON.stringify(third ?? 'none').slice(0, 600)}`,
	);
}
