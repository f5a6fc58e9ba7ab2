import { parseToolArguments } from '../conversation/arguments';
import type { PendingToolCall, Tool, ToolMessage } from '../conversation/types';
import type { CallOptions, CallToolResult } from '../mcp/connection';
import { describeIssues, type SchemaValidator } from '../schema/validator';
import { describeCallFailure, type CallFailureStatus } from './failures';
import { toToolMessage, type BinaryStore } from './resultMessage';

/** What the executor needs of a server connection. */
export interface ToolServer {
	callTool(name: string, args: Record<string, unknown>, options: CallOptions): Promise<CallToolResult>;
	stderrTail(): string;
}

export type CallStatus =
	| 'ok'
	| 'toolError'
	| 'unknownTool'
	| 'invalidArguments'
	| 'invalidOutput'
	| CallFailureStatus;

export interface CallOutcome {
	tool?: Tool;
	status: CallStatus;
	message: ToolMessage;
	/** The arguments sent, when the server was called. */
	sentArguments?: Record<string, unknown>;
	/** Set when the input schema could not be compiled, so the arguments went unchecked. */
	validationSkipped?: string;
}

export interface CallContext {
	server: ToolServer;
	validator: SchemaValidator;
	storeBinary: BinaryStore;
	options: CallOptions;
}

/**
 * One pending call, start to end: arguments parsed in a guard and checked against the tool's
 * inputSchema BEFORE the server sees them; the result checked against its outputSchema.
 * Every failure becomes a tool message that says what to fix; nothing is thrown.
 */
export async function runToolCall(
	call: PendingToolCall,
	resolveTool: () => Promise<Tool | undefined>,
	context: CallContext,
): Promise<CallOutcome> {
	const refuse = (status: CallStatus, text: string): CallOutcome => ({
		status,
		message: { role: 'tool', tool_call_id: call.id, content: text, name: call.name, isError: true },
	});
	const failed = (error: unknown) => {
		const failure = describeCallFailure(error, {
			tool: call.name,
			timeoutMs: context.options.timeoutMs,
			stderrTail: context.server.stderrTail(),
		});
		return refuse(failure.status, failure.text);
	};

	let tool: Tool | undefined;
	try {
		tool = await resolveTool();
	} catch (error) {
		return failed(error);
	}
	if (!tool) return refuse('unknownTool', `Unknown tool '${call.name}'. The server was not called.`);

	// `arguments` wins when present: it is what a person edits between nodes.
	const parsed = parseToolArguments(call.arguments ?? call.rawArguments);
	if (!parsed.ok) {
		return refuse(
			'invalidArguments',
			`The arguments for tool '${call.name}' could not be read: ${parsed.error}. The server was not called. Send the arguments as one JSON object.`,
		);
	}
	const args = parsed.value;

	const check = context.validator.check(tool.inputSchema, args);
	if (check.status === 'invalid') {
		return refuse(
			'invalidArguments',
			`The arguments for tool '${call.name}' do not match its input schema, so the server was not called:\n${describeIssues(check.issues)}\nFix these and call the tool again.`,
		);
	}
	const validationSkipped = check.status === 'unchecked' ? check.reason : undefined;

	let result: CallToolResult;
	try {
		result = await context.server.callTool(tool.mcpName ?? tool.name, args, context.options);
	} catch (error) {
		return { ...failed(error), tool, sentArguments: args, validationSkipped };
	}

	const message = await toToolMessage(call.id, call.name, result, context.storeBinary);
	const outputProblem = result.isError ? undefined : checkOutput(tool, result, context.validator);
	if (outputProblem) {
		message.isError = true;
		message.content = `${outputProblem}\nThe tool's output was:\n${message.content}`;
		return { status: 'invalidOutput', message, tool, sentArguments: args, validationSkipped };
	}
	return { status: result.isError ? 'toolError' : 'ok', message, tool, sentArguments: args, validationSkipped };
}

function checkOutput(tool: Tool, result: CallToolResult, validator: SchemaValidator): string | undefined {
	if (!tool.outputSchema) return undefined;
	if (result.structuredContent === undefined) {
		return `Tool '${tool.name}' declares an output schema but returned no structured content.`;
	}
	const check = validator.check(tool.outputSchema, result.structuredContent);
	if (check.status !== 'invalid') return undefined;
	return `Tool '${tool.name}' returned structured content that does not match its output schema:\n${describeIssues(check.issues)}`;
}
