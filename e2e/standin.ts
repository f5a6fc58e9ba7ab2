/**
 * Runs a model API stand-in (test/support/standIn/) as its own process, scripted for one of the
 * example workflows, so a real n8n can talk to it: Chat Completions, or another vendor's wire format.
 *
 *   node e2e/standin.ts --scenario loop|webhook|schedule --state FILE [--api-key KEY] [--inbox FOLDER]
 *                       [--dialect openaiChat|openaiResponses|anthropic|gemini|ollama]
 *
 * Listens on a free 127.0.0.1 port. Once listening it writes `{"baseURL": …, "pid": …}` to FILE;
 * on SIGTERM or SIGINT it rewrites FILE with the requests it received and the turns left
 * unconsumed, then exits. Runs on Node 24's built-in type stripping: no build step.
 */
import { writeFileSync } from 'node:fs';
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
	// examples/webhook-agent.json, asked "What is 1.5 + 2.25?".
	webhook: {
		answer: '1.5 + 2.25 = 3.75',
		turns: () => [
			reply.toolCalls([{ id: 'call_1', name: 'get-sum', arguments: '{"a":1.5,"b":2.25}' }]),
			reply.text('1.5 + 2.25 = 3.75'),
		],
	},
	// examples/approval-agent.json on folder --inbox, run twice: each run writes a file (a call the
	// example holds for a person), then answers with what the tool message said.
	approval: {
		answer: 'Done as decided.',
		turns: ({ inbox }) =>
			[1, 2].flatMap((run) => [
				reply.toolCalls([
					{
						id: `call_write_${run}`,
						name: 'write_file',
						arguments: JSON.stringify({ path: `${inbox}/note-${run}.txt`, content: `note ${run}` }),
					},
				]),
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
};

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
	if (!scenario || !values.state) {
		console.error(
			`usage: node standin.ts --scenario ${Object.keys(SCENARIOS).join('|')} --state FILE [--api-key KEY] [--inbox FOLDER]`,
		);
		process.exit(2);
	}
	const stateFile = values.state;
	const api = await startStandIn(values.dialect as Parameters<typeof startStandIn>[0], {
		apiKey: values['api-key'],
	});
	api.script(...scenario.turns({ inbox: values.inbox }));
	writeFileSync(
		stateFile,
		JSON.stringify({ baseURL: api.baseURL, pid: process.pid, answer: scenario.answer }),
	);
	console.log(`stand-in (${values.scenario}) listening at ${api.baseURL}`);

	let stopping = false;
	const stop = async () => {
		if (stopping) return;
		stopping = true;
		writeFileSync(
			stateFile,
			JSON.stringify(
				{
					baseURL: api.baseURL,
					answer: scenario.answer,
					remaining: api.remaining(),
					requests: api.requests,
				},
				null,
				2,
			),
		);
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
