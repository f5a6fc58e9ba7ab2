import type { UserMessage } from '../conversation/types';
import { parseToolArguments } from '../conversation/arguments';
import { withoutAnswerCall } from '../dialects/answerTool';
import { answerSchema } from '../dialects/settings';
import type { AnswerTool, ModelTurn, ResponseFormat, ToolNameMap } from '../dialects/types';
import { dropAddedNulls } from '../schema/strict';
import { describeIssues, SchemaValidator } from '../schema/validator';

// Made at the first structured answer: most nodes never check one.
let answers: SchemaValidator | undefined;

/**
 * A turn whose call of the answer tool (answerTool.ts) is its answer: the call's arguments become
 * the text (unwrapped from `answer` where the schema's root is no object), and the call leaves the
 * turn, as nothing is to run. Beside other calls, the answer call is dropped: those calls come first,
 * and the model answers after their results; the vendor's turn goes back with them, but that call.
 */
export function answerByTool(turn: ModelTurn, tool: AnswerTool, names: ToolNameMap): ModelTurn {
	const answerCalls = turn.toolCalls.filter((call) => call.name === tool.name);
	if (answerCalls.length === 0) return turn;
	const toolCalls = turn.toolCalls.filter((call) => call.name !== tool.name);
	const assistantCalls = (turn.message.tool_calls ?? []).filter(
		(call) => call.function.name !== tool.name,
	);
	const { vendorTurn, tool_calls: _calls, ...message } = turn.message;
	const [call] = answerCalls;
	const content =
		toolCalls.length > 0
			? turn.message.content
			: tool.wrapped && call.arguments && 'answer' in call.arguments
				? JSON.stringify(call.arguments.answer)
				: call.rawArguments;
	return {
		...turn,
		// The vendor's own turn holds the answer call, which no result will follow: never echoed with it.
		message: {
			...message,
			content,
			...(assistantCalls.length > 0 && { tool_calls: assistantCalls }),
			...(assistantCalls.length > 0 &&
				vendorTurn && { vendorTurn: withoutAnswerCall(vendorTurn, names.toVendor(tool.name)) }),
		},
		toolCalls,
		finish: toolCalls.length > 0 ? 'tool_calls' : 'stop',
	};
}

export type AnswerCheck = { ok: true; value: unknown } | { ok: false; problem: string };

/**
 * The answer read as JSON and checked against the format's schema. A code fence around the JSON
 * (models without a JSON mode write one) is taken off; nulls strict mode made the model send for
 * optional properties are dropped, as for tool arguments.
 */
export function checkAnswer(text: string, format: ResponseFormat): AnswerCheck {
	const fenced = /^\s*```(?:json)?\s*\n([\s\S]*?)\n?```\s*$/i.exec(text);
	const json = (fenced ? fenced[1] : text).trim();
	let value: unknown;
	try {
		value = JSON.parse(json);
	} catch (error) {
		return { ok: false, problem: `it is not JSON (${(error as Error).message})` };
	}
	if (format.type === 'json') return { ok: true, value };
	const schema = answerSchema(format);
	const parsed = parseToolArguments(json);
	const kept = parsed.ok ? dropAddedNulls(parsed.value, schema) : value;
	const checked = (answers ??= new SchemaValidator()).check(schema, kept);
	if (checked.status === 'invalid')
		return {
			ok: false,
			problem: `it does not match the schema:\n${describeIssues(checked.issues).replaceAll('the arguments object', 'the answer')}`,
		};
	return { ok: true, value: kept };
}

/** What the model is told when its answer breaks the format, so that it answers again. */
export function repairMessage(problem: string, tool?: AnswerTool): UserMessage {
	const how = tool
		? `Call ${tool.name} again with arguments that do.`
		: 'Answer again with only the JSON, matching the schema.';
	return {
		role: 'user',
		content: `Your answer is not what the Response Format asks for: ${problem}\n${how}`,
	};
}

/** The answer still broke the format after the repairs allowed: the item fails, saying why. */
export class AnswerFormatError extends Error {
	constructor(problem: string, repairs: number) {
		super(
			`The model's answer is not what the Response Format asks for${repairs > 0 ? `, after ${repairs} ${repairs === 1 ? 'repair' : 'repairs'}` : ''}: ${problem}`,
		);
	}
}
