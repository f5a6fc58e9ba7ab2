import { AsyncLocalStorage } from 'node:async_hooks';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
	ElicitRequestSchema,
	ElicitResultSchema,
	ErrorCode,
	McpError,
	type ClientCapabilities,
	type ElicitRequestFormParams,
	type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchema } from '../conversation/types';
import { SchemaValidator } from '../schema/validator';
import { formatBytes } from '../util/formatBytes';
import type { LocalAnswers, UnreadRequest } from './localAnswers';

export type { ElicitRequestFormParams, ElicitResult };

/**
 * What this client implements, and so declares: form elicitation, with the requested schema's
 * defaults filled into an accepted answer (SEP-1034). No sampling, no roots, no URL elicitation.
 */
export const CLIENT_CAPABILITIES: ClientCapabilities = {
	elicitation: { form: { applyDefaults: true } },
};

/** How a call answers a server that asks the user for input while the call runs. */
export interface ElicitationOptions {
	/**
	 * decline (the default: the call goes on, the server decides what to do without the input);
	 * defaults: accept with the requested schema's defaults (declined when a required field has none);
	 * answer: whatever `answer` returns.
	 */
	mode?: 'decline' | 'defaults' | 'answer';
	answer?: (request: ElicitRequestFormParams) => ElicitResult | Promise<ElicitResult>;
	/** Told of every request the server made during the call and how it was answered. */
	onServerRequest?: (event: ServerRequestEvent) => void;
}

export interface ServerRequestEvent {
	/** `elicitation/create` or `sampling/createMessage`; any method for a request too large to read. */
	method: string;
	/** Undefined for a request too large to read. */
	params: unknown;
	/** What the server got back; none when it got an error (always for sampling). */
	answer?: ElicitResult;
	error?: string;
	/** Set when the request was larger than this client reads: its size. It was refused unread. */
	requestBytes?: number;
	/**
	 * How the request was tied to this call: by the HTTP response stream it came on, as the only call
	 * running, or not at all (several calls were running; each of them is told, and it was declined).
	 */
	tiedBy: 'stream' | 'only-call' | 'unknown';
}

const SAMPLING_DECLINED = {
	code: ErrorCode.MethodNotFound,
	message:
		"This client does not offer sampling (sampling/createMessage): it declared no sampling capability and asks no model on a server's behalf.",
};

/** Why a request too large to read is refused: the server reads it, so it names the limit. */
function tooLargeToRead({ method, bytes, limit }: UnreadRequest) {
	const request = method === undefined ? 'The request' : `The ${method} request`;
	return {
		code: ErrorCode.InvalidRequest,
		message: `${request} is ${formatBytes(bytes)}, more than the ${formatBytes(limit)} this client reads (Max Result Size); it was refused unread`,
	};
}

/**
 * Answers the requests a server sends to the client (elicitation, sampling) for the call they
 * belong to. Over Streamable HTTP a request comes on the response stream of its call, and the async
 * context of the call that sent it tells which; over stdio and SSE only a sole running call can be told.
 */
export class ServerRequests {
	private readonly running = new Set<ElicitationOptions>();
	private readonly currentCall = new AsyncLocalStorage<ElicitationOptions>();

	/** `answers`: those of the reader of the session, which hands on a request too large to read. */
	constructor(client: Client, answers: LocalAnswers) {
		client.setRequestHandler(ElicitRequestSchema, (request) =>
			this.elicit(request.params as ElicitRequestFormParams),
		);
		client.fallbackRequestHandler = async (request) => {
			const unread = answers.unreadRequestOf(request);
			if (unread) {
				const method = unread.method ?? 'unknown';
				this.refuse(
					{ method, params: undefined, requestBytes: unread.bytes },
					tooLargeToRead(unread),
				);
			}
			if (request.method !== 'sampling/createMessage') {
				throw new McpError(ErrorCode.MethodNotFound, `Method not found: ${request.method}`);
			}
			this.refuse({ method: request.method, params: request.params }, SAMPLING_DECLINED);
		};
	}

	/** Runs one call; server requests that come while it runs are answered by its options. */
	async during<T>(options: ElicitationOptions, work: () => Promise<T>): Promise<T> {
		this.running.add(options);
		try {
			return await this.currentCall.run(options, work);
		} finally {
			this.running.delete(options);
		}
	}

	private async elicit(params: ElicitRequestFormParams): Promise<ElicitResult> {
		const { options, tiedBy } = this.target();
		const call = tiedBy === 'unknown' ? undefined : options[0];
		let answer: ElicitResult;
		let error: string | undefined;
		try {
			answer = withDefaults(await answerFor(call, params), params.requestedSchema);
			// The SDK refuses an answer outside the result schema (a nested value, say) and the server
			// gets an error: said here, the trace and the model are told what the server got.
			const checked = ElicitResultSchema.safeParse(answer);
			if (!checked.success) {
				const [issue] = checked.error.issues;
				throw new Error(
					`The answer is not one an elicitation result may be (${issue.path.join('.') || 'the answer'}: ${issue.message}); the server was told the request was cancelled`,
				);
			}
			const unfit =
				answer.action === 'accept' && formIssues(params.requestedSchema, answer.content);
			if (unfit)
				throw new Error(
					`The answer does not fill in the form the server asked for (${unfit}); the server was told the request was cancelled`,
				);
		} catch (failure) {
			error = (failure as Error).message;
			answer = { action: 'cancel' };
		}
		for (const told of options) {
			told.onServerRequest?.({ method: 'elicitation/create', params, answer, error, tiedBy });
		}
		return answer;
	}

	/** Tells the calls the request belongs to that it was refused, and why; the server gets the error. */
	private refuse(
		request: Pick<ServerRequestEvent, 'method' | 'params' | 'requestBytes'>,
		why: { code: number; message: string },
	): never {
		const { options, tiedBy } = this.target();
		for (const call of options) call.onServerRequest?.({ ...request, error: why.message, tiedBy });
		// The SDK answers with the error's code and message; an McpError's message repeats its code.
		throw Object.assign(new Error(why.message), { code: why.code });
	}

	private target(): { options: ElicitationOptions[]; tiedBy: ServerRequestEvent['tiedBy'] } {
		const byStream = this.currentCall.getStore();
		if (byStream) return { options: [byStream], tiedBy: 'stream' };
		const running = [...this.running];
		return { options: running, tiedBy: running.length === 1 ? 'only-call' : 'unknown' };
	}
}

async function answerFor(
	call: ElicitationOptions | undefined,
	params: ElicitRequestFormParams,
): Promise<ElicitResult> {
	const mode = call?.mode ?? 'decline';
	if (mode === 'answer' && call?.answer) return call.answer(params);
	const defaults = defaultsOf(params.requestedSchema);
	const required = params.requestedSchema.required ?? [];
	if (mode === 'defaults' && required.every((name) => name in defaults)) {
		return { action: 'accept', content: {} };
	}
	return { action: 'decline' };
}

type RequestedSchema = ElicitRequestFormParams['requestedSchema'];

/** The forms' schemas, compiled once each. */
const forms = new SchemaValidator();

/**
 * Where accepted content breaks the form it answers (a required field missing, text for a number,
 * a value the field does not offer), as one line; undefined when it fits. A server checks it too,
 * and fails its tool when it does not fit.
 */
function formIssues(schema: RequestedSchema, content: ElicitResult['content']): string | undefined {
	const check = forms.check(schema as JsonSchema, content ?? {});
	if (check.status !== 'invalid') return undefined;
	return check.issues
		.map((issue) => `${issue.instancePath.slice(1) || 'the form'} ${issue.message}`)
		.join('; ');
}

/**
 * An accepted answer with the schema's defaults where it leaves fields out (SEP-1034; the SDK would
 * fill them too, after the caller is told): the caller is told what the server gets. The schema of
 * an elicitation is flat, so the top level is all there is.
 */
function withDefaults(answer: ElicitResult, schema: RequestedSchema): ElicitResult {
	if (answer.action !== 'accept') return answer;
	return { ...answer, content: { ...defaultsOf(schema), ...answer.content } };
}

/** The defaults a requested form declares, by field. */
export function defaultsOf(
	schema: RequestedSchema,
): Record<string, string | number | boolean | string[]> {
	return Object.fromEntries(
		Object.entries(schema.properties as Record<string, { default?: unknown }>)
			.filter(([, property]) => property.default !== undefined)
			.map(([name, property]) => [name, property.default as string | number | boolean]),
	);
}

/**
 * A caller's answer as an elicitation result: nothing (or empty text) declines; an object with only
 * `action` (and, to accept, `content`) is the result itself; any other object is the content to
 * accept with. JSON text is read first.
 */
export function elicitResultFrom(value: unknown): ElicitResult {
	if (value === undefined || value === null || value === '') return { action: 'decline' };
	let answer = value;
	if (typeof value === 'string') {
		try {
			answer = JSON.parse(value);
		} catch {
			throw new Error(`The answer is not JSON: ${value.slice(0, 100)}`);
		}
	}
	if (typeof answer !== 'object' || answer === null || Array.isArray(answer)) {
		throw new Error(
			'The answer must be a JSON object: the content to accept with, or {"action": "decline"}',
		);
	}
	const { action, content, ...rest } = answer as Record<string, unknown>;
	const isResult = Object.keys(rest).length === 0 && typeof action === 'string';
	if (isResult && (action === 'decline' || action === 'cancel')) return { action };
	if (isResult && action === 'accept') {
		return { action, content: (content ?? {}) as ElicitResult['content'] };
	}
	return { action: 'accept', content: answer as ElicitResult['content'] };
}
