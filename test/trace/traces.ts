import type { RecordedEntry } from '../../lib/trace/read';

/**
 * Hand-written traces in docs/trace.md's format. `run` varies everything that differs between any
 * two real runs (times, durations, vendor ids, usage, attempts, headers), so equal scripts run
 * with different `run` values must tell the same story.
 */

export interface ListedTool {
	name: string;
	description?: string;
	inputSchema: Record<string, unknown>;
}

export interface ScriptedCall {
	name: string;
	arguments: Record<string, unknown>;
	result: string;
	status?: string;
	structuredContent?: Record<string, unknown>;
}

export type ScriptedRound = { calls: ScriptedCall[] } | { answer: string };

export interface Script {
	tools?: ListedTool[];
	rounds: ScriptedRound[];
	dialect?: 'openaiChat' | 'anthropic';
	/** Which run this is: changes ids, times and usage, never the story. */
	run?: number;
}

export const addTool: ListedTool = {
	name: 'add',
	description: 'Adds two numbers',
	inputSchema: {
		type: 'object',
		properties: { a: { type: 'number' }, b: { type: 'number' } },
		required: ['a', 'b'],
	},
};

export const echoTool: ListedTool = {
	name: 'echo',
	description: 'Echoes a message',
	inputSchema: {
		type: 'object',
		properties: { message: { type: 'string' } },
		required: ['message'],
	},
};

/** The model adds 2 and 3 with the add tool, then answers. */
export const addThenAnswer: Script = {
	rounds: [
		{ calls: [{ name: 'add', arguments: { a: 2, b: 3 }, result: 'The sum of 2 and 3 is 5.' }] },
		{ answer: 'Five.' },
	],
};

export function traceOf({
	tools = [addTool, echoTool],
	rounds,
	dialect = 'openaiChat',
	run = 1,
}: Script): RecordedEntry[] {
	let clock = Date.UTC(2026, 11, 2, 10, 0, 0) + run * 3_600_000;
	const at = () => new Date((clock += 100 + run * 7)).toISOString();
	const timed = (step: string, node: string, round: number) => ({
		step,
		node,
		round,
		at: at(),
		durationMs: 10 + run,
	});

	const trace: RecordedEntry[] = [
		{
			...timed('tools.list', 'List Tools', 0),
			server: {
				label: 'everything',
				name: 'mcp-servers/everything',
				version: `2.0.${run}`,
				protocolVersion: '2025-11-25',
				transport: 'stdio',
			},
			toolCount: tools.length,
			listedCount: 13,
			listHash: `sha256:${run}`,
			payload: tools,
		},
	];
	for (const [index, scripted] of rounds.entries()) {
		const round = index + 1;
		const calls =
			'calls' in scripted
				? scripted.calls.map((call, position) => ({
						...call,
						id: `call_${run}_${round}_${position}`,
					}))
				: [];
		const answer = 'answer' in scripted ? scripted.answer : null;
		trace.push({
			...timed('model.request', 'Model', round),
			dialect,
			url: 'https://api.example.test/v1',
			method: 'POST',
			headers: { authorization: '[redacted]', 'x-request-id': `req-${run}-${round}` },
			payload: requestBody(dialect, tools),
		});
		trace.push({
			...timed('model.response', 'Model', round),
			dialect,
			attempts: [{ status: 200, durationMs: 50 * run }],
			finish: calls.length > 0 ? 'tool_calls' : 'stop',
			usage: { total_tokens: 30 + run },
			toolCalls: calls.map(({ id, name }) => ({ id, name })),
			payload: responseBody(dialect, run, calls, answer),
		});
		for (const call of calls) {
			const ids = { callId: call.id, tool: call.name };
			trace.push({
				...timed('arguments.validation', 'Execute Tool Calls', round),
				...ids,
				status: 'valid',
				issues: [],
				payload: call.arguments,
			});
			trace.push({
				...timed('tools.call.request', 'Execute Tool Calls', round),
				server: 'everything',
				...ids,
				payload: { name: call.name, arguments: call.arguments },
			});
			trace.push({
				...timed('tools.call.result', 'Execute Tool Calls', round),
				server: 'everything',
				...ids,
				status: call.status ?? 'ok',
				payload: {
					content: [{ type: 'text', text: call.result }],
					...(call.structuredContent && { structuredContent: call.structuredContent }),
				},
			});
		}
	}
	return trace;
}

function requestBody(dialect: Script['dialect'], tools: ListedTool[]) {
	if (dialect === 'anthropic') {
		return {
			model: 'claude-test',
			max_tokens: 1024,
			messages: [{ role: 'user', content: 'What is 2 + 3?' }],
			tools: tools.map((tool) => ({
				name: tool.name,
				description: tool.description,
				input_schema: tool.inputSchema,
			})),
		};
	}
	return {
		model: 'gpt-test',
		messages: [{ role: 'user', content: 'What is 2 + 3?' }],
		tools: tools.map((tool) => ({
			type: 'function',
			function: { name: tool.name, description: tool.description, parameters: tool.inputSchema },
		})),
		tool_choice: 'auto',
	};
}

function responseBody(
	dialect: Script['dialect'],
	run: number,
	calls: Array<ScriptedCall & { id: string }>,
	answer: string | null,
) {
	if (dialect === 'anthropic') {
		return {
			id: `msg_${run}`,
			type: 'message',
			role: 'assistant',
			model: 'claude-test',
			content: [
				{ type: 'text', text: answer ?? `Let me work that out (run ${run}).` },
				...calls.map((call) => ({
					type: 'tool_use',
					id: call.id,
					name: call.name,
					input: call.arguments,
				})),
			],
			stop_reason: calls.length > 0 ? 'tool_use' : 'end_turn',
			usage: { input_tokens: 20 + run, output_tokens: 10 },
		};
	}
	const toolCalls = calls.map((call) => ({
		id: call.id,
		type: 'function',
		function: { name: call.name, arguments: JSON.stringify(call.arguments) },
	}));
	return {
		id: `chatcmpl-${run}`,
		object: 'chat.completion',
		created: 1_700_000_000 + run,
		model: 'gpt-test',
		choices: [
			{
				index: 0,
				message: {
					role: 'assistant',
					content: answer,
					...(toolCalls.length > 0 && { tool_calls: toolCalls }),
				},
				finish_reason: calls.length > 0 ? 'tool_calls' : 'stop',
			},
		],
		usage: { prompt_tokens: 20 + run, completion_tokens: 10, total_tokens: 30 + run },
	};
}
