import { parseToolArguments } from '../conversation/arguments';
import type { JsonSchema, PendingToolCall, Tool, ToolMessage } from '../conversation/types';
import type { Redactor } from '../json/redact';
import type { CallToolResult, ToolCallOptions } from '../mcp/connection';
import { CallCancelledError } from '../mcp/callErrors';
import {
	describeIssues,
	type CheckResult,
	type SchemaIssue,
	type SchemaValidator,
} from '../schema/validator';
import { ReplayDriftError } from '../trace/recording';
import { reasonOf } from '../util/errorReason';
import { describeCallFailure, type CallFailureStatus } from './failures';
import { redactResult } from './redactResult';
import { toToolMessage, type BinaryStore } from './resultMessage';
import { describeServerAsks, type ServerAsk } from './serverAsks';
import { CALL_RUN, RecordedFailure, type CallRun, type ToolServer } from './toolServer';

export type CallStatus =
	| 'ok'
	| 'toolError'
	| 'unknownTool'
	| 'invalidArguments'
	| 'invalidOutput'
	| 'declined'
	| CallFailureStatus;

/** What the argument check found, before any server was called. */
export interface ArgumentCheck {
	status: 'valid' | 'invalid' | 'unparseable' | 'unchecked' | 'unknownTool' | 'unresolved';
	/** The arguments as parsed, or the raw text when they could not be parsed. */
	arguments: Record<string, unknown> | string;
	issues?: SchemaIssue[];
	/** Why the check could not be made or the arguments not read, or which patterns it left out. */
	reason?: string;
}

export interface CallOutcome {
	tool?: Tool;
	status: CallStatus;
	message: ToolMessage;
	check: ArgumentCheck;
	/** The arguments sent, when the server was called. */
	sentArguments?: Record<string, unknown>;
	/** When the server was called and how long it took. */
	called?: { startedAt: number; durationMs: number };
	/** The server's result as received, when it answered. */
	result?: CallToolResult;
	/** What the server asked this client during the call (elicitation, sampling), in order. */
	serverAsks: ServerAsk[];
	/** Where the call ran, when the server told (an n8n sub-execution). */
	run?: CallRun;
}

export interface CallContext {
	server: ToolServer;
	validator: SchemaValidator;
	storeBinary: BinaryStore;
	options: ToolCallOptions;
	/**
	 * Takes the credential secrets out of each result as it arrives, before anything reads it, and
	 * out of every tool message (a server's error text may quote what it was given).
	 */
	redactor: Redactor;
}

/** What the model hears of a tool it was not offered, or that its server does not have. */
export const unknownToolText = (name: string) =>
	`Unknown tool '${name}'. The server was not called.`;

/**
 * One pending call, start to end: arguments parsed in a guard and checked against the tool's
 * inputSchema BEFORE the server sees them; the result checked against its outputSchema.
 * Every failure becomes a tool message that says what to fix; only a dry run that drifted from
 * its recording throws, as that is the run's failure, not the call's.
 */
export async function runToolCall(
	call: PendingToolCall,
	resolveTool: () => Promise<Tool | undefined>,
	context: CallContext,
): Promise<CallOutcome> {
	const asks: ServerAsk[] = [];
	const refuse = (status: CallStatus, text: string, check: ArgumentCheck): CallOutcome => ({
		status,
		check,
		message: {
			role: 'tool',
			tool_call_id: call.id,
			content: context.redactor.values(text),
			name: call.name,
			isError: true,
		},
		serverAsks: asks,
	});
	const failure = (error: unknown) =>
		describeCallFailure(error, { tool: call.name, stderrTail: context.server.stderrTail() });
	const unchecked: ArgumentCheck['arguments'] = call.arguments ?? call.rawArguments;

	let tool: Tool | undefined;
	try {
		tool = await resolveTool();
	} catch (error) {
		if (error instanceof ReplayDriftError) throw error;
		const { status, text } = failure(error);
		return refuse(status, text, { status: 'unresolved', arguments: unchecked, reason: text });
	}
	if (!tool) {
		return refuse('unknownTool', unknownToolText(call.name), {
			status: 'unknownTool',
			arguments: unchecked,
		});
	}

	// `arguments` wins when present: it is what a person edits between nodes.
	const parsed = parseToolArguments(call.arguments ?? call.rawArguments);
	if (!parsed.ok) {
		return refuse(
			'invalidArguments',
			`The arguments for tool '${call.name}' could not be read: ${parsed.error}. The server was not called. Send the arguments as one JSON object.`,
			{ status: 'unparseable', arguments: unchecked, reason: parsed.error },
		);
	}
	const args = parsed.value;

	const schemaCheck = checkedSafely(context.validator, tool.inputSchema, args);
	if (schemaCheck.status === 'invalid') {
		return refuse(
			'invalidArguments',
			`The arguments for tool '${call.name}' do not match its input schema, so the server was not called:\n${describeIssues(schemaCheck.issues)}\nFix these and call the tool again.`,
			{ status: 'invalid', arguments: args, issues: schemaCheck.issues, ...skippedOf(schemaCheck) },
		);
	}
	const check: ArgumentCheck =
		schemaCheck.status === 'unchecked'
			? { status: 'unchecked', arguments: args, reason: schemaCheck.reason }
			: { status: 'valid', arguments: args, ...skippedOf(schemaCheck) };
	const sent = { tool, check, sentArguments: args };

	const startedAt = Date.now();
	const { elicitation } = context.options;
	const options = {
		...context.options,
		elicitation: {
			...elicitation,
			onServerRequest: (event: ServerAsk['event']) => {
				asks.push({ at: Date.now(), event });
				elicitation?.onServerRequest?.(event);
			},
		},
	};
	let result: CallToolResult;
	let run: CallRun | undefined;
	try {
		const { [CALL_RUN]: ranAs, ...served } = await context.server.callTool(
			tool.mcpName ?? tool.name,
			args,
			options,
			call.id,
		);
		run = ranAs;
		result = redactResult(served, context.redactor);
	} catch (error) {
		// A dry run that no longer matches its recording is the run's failure, not the tool's.
		if (error instanceof ReplayDriftError) throw error;
		const { status, text } =
			error instanceof RecordedFailure
				? { status: error.status, text: error.message }
				: failure(error);
		// Cancelled before it was sent: the server never saw it, so no request is traced.
		if (error instanceof CallCancelledError && !error.sent)
			return { ...refuse(status, text, check), tool };
		const failedRun = error instanceof RecordedFailure ? error.run : undefined;
		return {
			...refuse(status, withAsks(text, asks), check),
			...sent,
			called: { startedAt, durationMs: Date.now() - startedAt },
			...(failedRun && { run: context.redactor.values(failedRun) }),
		};
	}
	const called = { startedAt, durationMs: Date.now() - startedAt };

	const message = await toToolMessage(call.id, call.name, result, context.storeBinary);
	message.content = context.redactor.values(withAsks(message.content, asks));
	const answered = {
		message,
		...sent,
		called,
		result,
		serverAsks: asks,
		...(run && { run: context.redactor.values(run) }),
	};
	const outputProblem = result.isError ? undefined : checkOutput(tool, result, context.validator);
	if (outputProblem) {
		message.isError = true;
		message.content = `${outputProblem}\nThe tool's output was:\n${message.content}`;
		return { status: 'invalidOutput', ...answered };
	}
	return { status: result.isError ? 'toolError' : 'ok', ...answered };
}

/**
 * The validator's check, which is not to throw; if it did all the same, the value is unchecked
 * rather than the item failed, with the answers of its calls that already ran.
 */
function checkedSafely(
	validator: SchemaValidator,
	schema: JsonSchema,
	value: unknown,
): CheckResult {
	try {
		return validator.check(schema, value);
	} catch (error) {
		return { status: 'unchecked', reason: `the check failed: ${reasonOf(error)}` };
	}
}

/** The patterns a check left out, as the reason its trace entry gives. */
function skippedOf(check: { skipped?: string }): Pick<ArgumentCheck, 'reason'> {
	return check.skipped === undefined ? {} : { reason: check.skipped };
}

/** The text with a line for each request the server made during the call. */
function withAsks(text: string, asks: readonly ServerAsk[]): string {
	return [text, ...describeServerAsks(asks)].join('\n');
}

function checkOutput(
	tool: Tool,
	result: CallToolResult,
	validator: SchemaValidator,
): string | undefined {
	if (!tool.outputSchema) return undefined;
	if (result.structuredContent === undefined) {
		return `Tool '${tool.name}' declares an output schema but returned no structured content.`;
	}
	const check = checkedSafely(validator, tool.outputSchema, result.structuredContent);
	if (check.status !== 'invalid') return undefined;
	return `Tool '${tool.name}' returned structured content that does not match its output schema:\n${describeIssues(check.issues)}`;
}
