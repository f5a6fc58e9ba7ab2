/**
 * Runs a model API stand-in (test/support/standIn/) as its own process, scripted for one of the
 * example workflows, so a real n8n can talk to it: Chat Completions, or another vendor's wire format.
 *
 *   node e2e/standin.ts --scenario loop|structuredLoop|overloaded|webhook|schedule|sums|chat --state FILE [--api-key KEY] [--inbox FOLDER]
 *                       [--dialect openaiChat|openaiResponses|anthropic|gemini|ollama]
 *
 * A scenario's turns are served in the order requests come; `sums` and `chat` (Chat Completions
 * only) answer each request by what it holds instead, for requests that come at once; `chat`
 * streams its answers a frame at a time, as a model writes them.
 * Listens on a free 127.0.0.1 port. Once listening it writes `{"baseURL": …, "pid": …}` to FILE;
 * on SIGTERM or SIGINT it rewrites FILE with the requests it received and the turns left
 * unconsumed, then exits. Runs on Node 24's built-in type stripping: no build step.
 */
import { writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage } from 'node:http';
import { registerHooks } from 'node:module';
import { parseArgs } from 'node:util';
import type { Turn } from '../test/support/standIn/index.ts';

// The stand-in's modules import each other without file extensions, as the TypeScript build wants;
// Node's type stripping needs them, so `.ts` is added where a relative import finds no file.
registerHooks({
	resolve(specifier, context, nextResolve) {
		try {
			return nextResolve(specifier, context);
		} catch (error) {
			if (!specifier.startsWith('.')) throw error;
			return nextResolve(`${specifier}.ts`, context);
		}
	},
});
const { reply, startStandIn } = await import('../test/support/standIn/index.ts');

/** What the model "says" in each scenario; the e2e script checks n8n's output against these. */
export const SCENARIOS: Record<
	string,
	{ turns: (options: { inbox?: string }) => Turn[]; answer: string }
> = {
	// examples/mcp-tool-loop.json: add with one tool, echo the sum with another, then answer.
	loop: {
		answer: '17 + 25 = 42, and the echo said: 42.',
		turns: () => [
			reply.toolCalls([{ id: 'call_sum', name: 'get-sum', arguments: '{"a":17,"b":25}' }]),
			reply.toolCalls([{ id: 'call_echo', name: 'echo', arguments: '{"message":"42"}' }], {
				content: 'Now I echo it.',
			}),
			reply.text('17 + 25 = 42, and the echo said: 42.'),
		],
	},
	// The loop with a Response Format (JSON Schema), answered by the fallback model: its answer is
	// the JSON the schema asks for.
	structuredLoop: {
		answer: '{"sum":42,"echoed":"42"}',
		turns: () => [
			...SCENARIOS.loop.turns({}).slice(0, 2),
			reply.text(SCENARIOS.structuredLoop.answer),
		],
	},
	// A model API that is overloaded whatever it is asked: the fallback model takes each turn.
	overloaded: {
		answer: '',
		turns: () => Array.from({ length: 12 }, () => reply.error(503, 'The server is overloaded')),
	},
	// examples/webhook-agent.json, asked "What is 1.5 + 2.25?".
	webhook: {
		answer: '1.5 + 2.25 = 3.75',
		turns: () => [
			reply.toolCalls([{ id: 'call_1', name: 'get-sum', arguments: '{"a":1.5,"b":2.25}' }]),
			reply.text('1.5 + 2.25 = 3.75'),
		],
	},
	// examples/approval-agent.json on folder --inbox, run twice: the first run writes two files one
	// after the other, the second one file (calls the example holds for a person), then each answers.
	approval: {
		answer: 'Done as decided.',
		turns: ({ inbox }) =>
			[['1', '1b'], ['2']].flatMap((notes) => [
				...notes.map((note) =>
					reply.toolCalls([
						{
							id: `call_write_${note}`,
							name: 'write_file',
							arguments: JSON.stringify({
								path: `${inbox}/note-${note}.txt`,
								content: `note ${note}`,
							}),
						},
					]),
				),
				reply.text(SCENARIOS.approval.answer),
			]),
	},
	// examples/scheduled-inbox-summary.json on folder --inbox: list it and read one note through the
	// real MCP filesystem server, then answer; later runs (the copy runs every 10 s) get the answer at once.
	schedule: {
		answer: 'Inbox: 2 notes. The release ships on Friday; the docs need screenshots first.',
		turns: ({ inbox }) => [
			reply.toolCalls([
				{ id: 'call_list', name: 'list_directory', arguments: JSON.stringify({ path: inbox }) },
			]),
			reply.toolCalls([
				{
					id: 'call_read',
					name: 'read_text_file',
					arguments: JSON.stringify({ path: `${inbox}/standup.md` }),
				},
			]),
			...Array.from({ length: 100 }, () => reply.text(SCENARIOS.schedule.answer)),
		],
	},
	// examples/workflow-tools-agent.json (e2e/phases/workflowTools.ts), run twice: add the weights
	// with the MCP server's get-sum, price them with the shipping_quote workflow tool, answer.
	workflowTools: {
		answer: 'Together they weigh 4.5 kg; shipping them to France costs 10.30 EUR (2 days).',
		turns: () =>
			[1, 2].flatMap(() => [
				reply.toolCalls([{ id: 'call_sum', name: 'get-sum', arguments: '{"a":3,"b":1.5}' }]),
				reply.toolCalls([
					{
						id: 'call_quote',
						name: 'shipping_quote',
						arguments: '{"weightKg":4.5,"destination":"FR"}',
					},
				]),
				reply.text(SCENARIOS.workflowTools.answer),
			]),
	},
};

// Request bodies are read as loose JSON.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Loose = any;

/**
 * Scenarios that answer each Chat Completions request by what it holds, not by when it came, so
 * that conversations running at once (the queue-mode phase's concurrent webhook calls) each get
 * their own answers.
 */
export const BY_REQUEST: Record<string, (body: Loose) => Turn> = {
	// examples/webhook-agent.json asked "What is A + B?": get-sum with A and B, then, once the tool
	// result is there, "A + B = S" with the S the MCP server's result gave.
	sums: (body) => {
		const messages: Loose[] = Array.isArray(body?.messages) ? body.messages : [];
		const question = String(messages.findLast((message) => message.role === 'user')?.content);
		const [, a = '?', b = '?'] = /What is (-?[\d.]+) \+ (-?[\d.]+)\?/.exec(question) ?? [];
		const last = messages.at(-1);
		if (last?.role !== 'tool') {
			const args = JSON.stringify({ a: Number(a), b: Number(b) });
			return reply.toolCalls([{ id: 'call_sum', name: 'get-sum', arguments: args }]);
		}
		const sum = / is (-?\d+(?:\.\d+)?)\.?$/.exec(String(last.content))?.[1];
		return reply.text(`${a} + ${b} = ${sum ?? `? (tool result: ${String(last.content)})`}`);
	},
	// examples/chat-agent.json, a chat session's messages: "What is A + B?" calls get-sum, "Echo X"
	// calls echo, each answered from its tool result; a question about the sum from earlier is
	// answered from the get-sum result the conversation carries (the session's memory), or not at all.
	chat: (body) => {
		const messages: Loose[] = Array.isArray(body?.messages) ? body.messages : [];
		const last = messages.at(-1);
		if (last?.role === 'tool') {
			const result = String(last.content);
			const sum = /^The sum of (\S+) and (\S+) is (\S+)\.$/.exec(result);
			if (sum) return reply.text(`${sum[1]} + ${sum[2]} = ${sum[3]}. I will remember that.`);
			return reply.text(`The echo tool answered: ${result}`);
		}
		const said = String(last?.content);
		const [, a, b] = /What is (-?[\d.]+) \+ (-?[\d.]+)\?/.exec(said) ?? [];
		if (a !== undefined) {
			const args = JSON.stringify({ a: Number(a), b: Number(b) });
			return reply.toolCalls([{ name: 'get-sum', arguments: args }]);
		}
		const echo = /^Echo (.+)$/.exec(said)?.[1];
		if (echo !== undefined)
			return reply.toolCalls([{ name: 'echo', arguments: JSON.stringify({ message: echo }) }]);
		const earlier = messages
			.filter((message) => message.role === 'tool')
			.map((message) => String(message.content))
			.findLast((result) => result.startsWith('The sum of '));
		return reply.text(
			earlier ? `Earlier the get-sum tool said: ${earlier}` : 'No sum was worked out in this chat.',
		);
	},
};

/** Scenarios whose streamed answers go out a frame at a time, this many milliseconds apart. */
const FRAME_GAP_MS: Record<string, number> = { chat: 150 };

function readBody(request: IncomingMessage): Promise<Buffer> {
	return new Promise((resolve, reject) => {
		const parts: Buffer[] = [];
		request.on('data', (part: Buffer) => parts.push(part));
		request.on('end', () => resolve(Buffer.concat(parts)));
		request.on('error', reject);
	});
}

const HOP_BY_HOP = new Set([
	'connection',
	'content-length',
	'content-encoding',
	'host',
	'keep-alive',
	'transfer-encoding',
]);

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A front for the stand-in that scripts the one turn each model call gets from its body, then
 * passes the call on: one call at a time, so each call gets the turn scripted for it. With
 * `frameGapMs`, a streamed answer is passed on one server-sent event at a time, that far apart.
 */
async function answerByRequest(
	api: { baseURL: string; script(...turns: Turn[]): void; remaining(): number },
	respond: (body: Loose) => Turn,
	frameGapMs = 0,
): Promise<{ baseURL: string; close(): Promise<void> }> {
	const inner = new URL(api.baseURL);
	let turn = Promise.resolve();
	const server = createServer((request, response) => {
		const handled = turn.then(async () => {
			const body = await readBody(request);
			if (request.method === 'POST' && request.url?.endsWith('/chat/completions')) {
				let parsed: Loose;
				try {
					parsed = JSON.parse(body.toString('utf8'));
				} catch {
					parsed = undefined;
				}
				// A call the stand-in refused leaves its turn unused, to be served to the next call
				// (whose answer then shows the mix-up); the calls after it are in step again.
				if (api.remaining() === 0) api.script(respond(parsed));
			}
			const headers = Object.entries(request.headers).filter(
				([name, value]) => !HOP_BY_HOP.has(name) && typeof value === 'string',
			) as Array<[string, string]>;
			const passed = await fetch(`${inner.origin}${request.url ?? '/'}`, {
				method: request.method,
				headers,
				body: ['GET', 'HEAD'].includes(request.method ?? 'GET') ? undefined : body,
			});
			const back: Record<string, string> = {};
			passed.headers.forEach((value, name) => {
				if (!HOP_BY_HOP.has(name)) back[name] = value;
			});
			if (frameGapMs > 0 && back['content-type']?.startsWith('text/event-stream')) {
				response.writeHead(passed.status, back);
				const events = (await passed.text()).split(/(?<=\n\n)/);
				for (const [n, event] of events.entries()) {
					if (n > 0) await sleep(frameGapMs);
					response.write(event);
				}
				response.end();
				return;
			}
			const text = Buffer.from(await passed.arrayBuffer());
			response.writeHead(passed.status, { ...back, 'content-length': String(text.length) });
			response.end(text);
		});
		turn = handled.catch(() => {
			response.destroy();
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as { port: number };
	return {
		baseURL: `http://127.0.0.1:${port}${inner.pathname}`,
		close: () => new Promise<void>((resolve) => server.close(() => resolve())),
	};
}

async function main(): Promise<void> {
	const { values } = parseArgs({
		options: {
			scenario: { type: 'string' },
			state: { type: 'string' },
			'api-key': { type: 'string' },
			inbox: { type: 'string' },
			dialect: { type: 'string', default: 'openaiChat' },
		},
	});
	const scenario = SCENARIOS[values.scenario ?? ''];
	const byRequest = BY_REQUEST[values.scenario ?? ''];
	if (
		(!scenario && !byRequest) ||
		!values.state ||
		(byRequest && values.dialect !== 'openaiChat')
	) {
		console.error(
			`usage: node standin.ts --scenario ${[...Object.keys(SCENARIOS), ...Object.keys(BY_REQUEST)].join('|')} --state FILE [--api-key KEY] [--inbox FOLDER] (${Object.keys(BY_REQUEST).join(', ')}: Chat Completions only)`,
		);
		process.exit(2);
	}
	const stateFile = values.state;
	const api = await startStandIn(values.dialect as Parameters<typeof startStandIn>[0], {
		apiKey: values['api-key'],
	});
	const front = byRequest
		? await answerByRequest(api, byRequest, FRAME_GAP_MS[values.scenario ?? ''])
		: undefined;
	if (scenario) api.script(...scenario.turns({ inbox: values.inbox }));
	const baseURL = front?.baseURL ?? api.baseURL;
	const answer = scenario?.answer;
	writeFileSync(stateFile, JSON.stringify({ baseURL, pid: process.pid, answer }));
	console.log(`stand-in (${values.scenario}) listening at ${baseURL}`);

	let stopping = false;
	const stop = async () => {
		if (stopping) return;
		stopping = true;
		writeFileSync(
			stateFile,
			JSON.stringify(
				{
					baseURL,
					answer,
					remaining: api.remaining(),
					requests: api.requests,
				},
				null,
				2,
			),
		);
		await front?.close();
		await api.close();
		process.exit(0);
	};
	process.on('SIGTERM', stop);
	process.on('SIGINT', stop);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exit(1);
});
