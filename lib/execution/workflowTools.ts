import { AsyncLocalStorage } from 'node:async_hooks';
import type { JsonSchema, WorkflowReference } from '../conversation/types';
import type { CallToolResult } from '../mcp/connection';
import { formatBytes } from '../util/formatBytes';
import { MAX_TIMER_MS } from '../util/timers';
import { RecordedFailure, type CallRun } from './toolServer';
import type { ToolCallOptions } from '../mcp/connection';

/** The input types an n8n sub-workflow's trigger can declare for a field ('any': no type). */
export type TriggerFieldType = 'string' | 'number' | 'boolean' | 'array' | 'object' | 'any';

/** What the sub-workflow's trigger takes: its fields, or all data (n8n's "Accept all data"). */
export type TriggerInputs =
	{ acceptsAll: false; fields: Array<{ name: string; type?: string }> } | { acceptsAll: true };

/** What the model reads of a workflow whose trigger accepts all data. */
export const ACCEPTS_ALL_NOTE =
	'The workflow takes any JSON object as its input (its trigger accepts all data): give the values it needs as arguments.';

/**
 * The input schema a trigger's fields give: each field a property of its type (an unknown or 'any'
 * type allows any value), every field required (the sub-workflow takes them as its inputs), no other
 * keys (the trigger drops them). A trigger that accepts all data gives a free object.
 */
export function triggerInputSchema(inputs: TriggerInputs): JsonSchema {
	if (inputs.acceptsAll) return { type: 'object', additionalProperties: true };
	const properties = Object.fromEntries(
		inputs.fields.map(({ name, type }) => [name, fieldSchema(type)]),
	);
	return {
		type: 'object',
		properties,
		required: inputs.fields.map(({ name }) => name),
		additionalProperties: false,
	};
}

function fieldSchema(type: string | undefined): JsonSchema {
	return type && ['string', 'number', 'boolean', 'array', 'object'].includes(type) ? { type } : {};
}

/** A workflow's name as a tool name (letters, digits, _ and -, 64 at most), or `workflow_<id>`. */
export function workflowToolName(workflowName: string | undefined, id: string): string {
	const name = (workflowName ?? '')
		.replace(/[^A-Za-z0-9_-]+/g, '_')
		.replace(/^_+|_+$/g, '')
		.slice(0, 64);
	return name || `workflow_${id}`.replace(/[^A-Za-z0-9_-]+/g, '_').slice(0, 64);
}

/** One output item of a sub-workflow: its JSON, and its binary data as base64. */
export interface WorkflowOutputItem {
	json: unknown;
	binary?: Array<{ property: string; mimeType: string; fileName?: string; base64: string }>;
}

/**
 * A sub-workflow's output items as a tool result: the JSON of the one item (or a list of the
 * items' JSON) as text, then each item's binary data as an image, audio clip or blob, as an MCP
 * server returns them; none is said in words. Output larger than `maxBytes` is refused whole.
 */
export function workflowOutputResult(
	workflow: string,
	items: readonly WorkflowOutputItem[],
	maxBytes: number,
	run: CallRun,
): CallToolResult {
	const text =
		items.length === 0
			? `The workflow '${workflow}' finished without returning any items.`
			: JSON.stringify(items.length === 1 ? items[0].json : items.map((item) => item.json));
	const binaries = items.flatMap((item, index) =>
		(item.binary ?? []).map((binary) => ({ ...binary, index })),
	);
	const bytes =
		Buffer.byteLength(text) +
		binaries.reduce((sum, { base64 }) => sum + Buffer.byteLength(base64, 'base64'), 0);
	if (bytes > maxBytes)
		throw new RecordedFailure(
			'resultTooLarge',
			`The workflow '${workflow}' returned ${items.length} item(s), ${formatBytes(bytes)}, more than the ${formatBytes(maxBytes)} a call may return (Max Result Size), so its output was dropped. Ask it for less, such as fewer results or one page.`,
			run,
		);
	const parts: CallToolResult['content'] = [{ type: 'text', text }];
	for (const { property, mimeType, base64, index } of binaries) {
		if (mimeType.startsWith('image/')) parts.push({ type: 'image', data: base64, mimeType });
		else if (mimeType.startsWith('audio/')) parts.push({ type: 'audio', data: base64, mimeType });
		else
			parts.push({
				type: 'resource',
				resource: { uri: `n8n-item:${index}/${property}`, mimeType, blob: base64 },
			});
	}
	return { content: parts };
}

/** The workflow tools whose calls are running in this async context, outermost first. */
const runningCalls = new AsyncLocalStorage<readonly WorkflowReference[]>();

/**
 * The chain of workflow tool calls the current code runs inside: a workflow tool's sub-workflow
 * that runs the loop again sees its caller here (n8n runs a sub-workflow in the caller's process).
 */
function workflowCallChain(): readonly WorkflowReference[] {
	return runningCalls.getStore() ?? [];
}

/** Runs `work` (the sub-workflow's execution) as a call of `workflow`, one level deeper. */
export function inWorkflowCall<T>(workflow: WorkflowReference, work: () => Promise<T>): Promise<T> {
	return runningCalls.run([...workflowCallChain(), workflow], work);
}

/** Why a call of `workflow` may not run this deep, or undefined when it may. */
export function tooDeep(workflow: WorkflowReference, maxDepth: number): string | undefined {
	const chain = workflowCallChain();
	if (chain.length < maxDepth) return undefined;
	const path = [...chain, workflow].map((each) => `'${each.name ?? each.id}'`).join(' → ');
	return `The workflow '${workflow.name ?? workflow.id}' was not run: this call is already inside ${chain.length} workflow tool call(s) (${path}), and Max Workflow Depth is ${maxDepth}. A workflow tool whose workflow runs the tool loop again would otherwise call itself without end; answer without this tool.`;
}

/** Ends a call with a failure the tool source describes: the model is answered with its words. */
export function failCall(status: RecordedFailure['status'], text: string, run?: CallRun): never {
	throw new RecordedFailure(status, text, run);
}

/** How a sub-execution ended for its caller: its data, its error, or a limit it ran past. */
export type Settled<T> =
	{ done: T } | { error: unknown } | { limit: 'timeout' | 'cancelled'; ms: number };

/**
 * The execution's end, or the call's limit once it runs past its Timeout (nothing reports progress,
 * so Max Total Time bounds it as well) or is cancelled. The execution itself is not stopped (n8n
 * gives a node no way to stop a sub-execution): it runs on, and its end is dropped.
 */
export function settleWithin<T>(
	execution: Promise<T>,
	options: ToolCallOptions,
): Promise<Settled<T>> {
	const ms = Math.min(
		options.timeoutMs,
		options.maxTotalMs && options.maxTotalMs > 0 ? options.maxTotalMs : Infinity,
		MAX_TIMER_MS,
	);
	return new Promise((resolve) => {
		const { signal } = options;
		const end = (settled: Settled<T>) => {
			clearTimeout(timer);
			signal?.removeEventListener('abort', cancelled);
			resolve(settled);
		};
		const cancelled = () => end({ limit: 'cancelled', ms });
		const timer = setTimeout(() => end({ limit: 'timeout', ms }), ms);
		if (signal?.aborted) return cancelled();
		signal?.addEventListener('abort', cancelled, { once: true });
		execution.then(
			(done) => end({ done }),
			(error: unknown) => end({ error }),
		);
	});
}
