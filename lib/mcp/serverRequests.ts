import { AsyncLocalStorage } from 'node:async_hooks';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import {
	CreateMessageRequestSchema,
	ElicitRequestSchema,
	ElicitResultSchema,
	ErrorCode,
	McpError,
	type ClientCapabilities,
	type CreateMessageRequestParams,
	type CreateMessageResultWithTools,
	type ElicitRequestFormParams,
	type ElicitResult,
} from '@modelcontextprotocol/sdk/types.js';
import type { JsonSchema } from '../conversation/types';
import { SchemaValidator } from '../schema/validator';
import { formatBytes } from '../util/formatBytes';
import type { LocalAnswers, UnreadRequest } from './localAnswers';

export type {
	CreateMessageRequestParams,
	CreateMessageResultWithTools,
	ElicitRequestFormParams,
	ElicitResult,
};

/**
 * What this client implements, and so declares: form elicitation, with the requested schema's
 * defaults filled into an accepted answer (SEP-1034). No roots, no URL elicitation; sampling only
 * where the configuration answers it (capabilitiesOf).
 */
export const CLIENT_CAPABILITIES: ClientCapabilities = {
	elicitation: { form: { applyDefaults: true } },
};

/** Sampling declared at initialize: the server may ask the client's model (and offer it tools). */
export interface SamplingCapability {
	tools: boolean;
}

/** The capabilities a connection declares: sampling (with tools) only when it answers it. */
export function capabilitiesOf(sampling: SamplingCapability | undefined): ClientCapabilities {
	if (!sampling) return CLIENT_CAPABILITIES;
	return { ...CLIENT_CAPABILITIES, sampling: sampling.tools ? { tools: {} } : {} };
}

/** How the sampling requests of one call are answered. */
export interface SamplingOptions {
	/** Asks the model; its error is the server's answer, and the event's. */
	answer: (params: CreateMessageRequestParams) => Promise<SamplingAnswer>;
	/** Requests answered per call at most; later ones are refused. */
	maxRequests: number;
}

export interface SamplingAnswer {
	result: CreateMessageResultWithTools;
	usage?: Record<string, unknown>;
}

/** How a call answers a server that asks the user for input while the call runs. */
export interface ElicitationOptions {
	/**
	 * decline (the default: the call goes on, the server decides what to do without the input);
	 * defaults: accept with the requested schema's defaults (declined when a required field has none);
	 * answer: whatever `answer` returns.
	 */
	mode?: 'decline' | 'defaults' | 'answer';
	answer?: (request: ElicitRequestFormParams) => ElicitResult | Promise<ElicitResult>;
	/** How the server's sampling requests are answered; declined without it. */
	sampling?: SamplingOptions;
	/** Told of every request the server made during the call and how it was answered. */
	onServerRequest?: (event: ServerRequestEvent) => void;
}

export interface ServerRequestEvent {
	/** `elicitation/create` or `sampling/createMessage`; any method for a request too large to read. */
	method: string;
	/** Undefined for a request too large to read. */
	params: unknown;
	/** What the server got back; none when it got an error. */
	answer?: ElicitResult | CreateMessageResultWithTools;
	/** The model's usage figures for a sampling answer, when the vendor gave them. */
	usage?: Record<string, unknown>;
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

/** The error code MCP gives for a sampling request the client's side turned down. */
const SAMPLING_REFUSED = -1;

const SAMPLING_UNTIED =
	'Several calls were running and the sampling request could not be tied to one of them, so no model was asked';
const SAMPLING_DECLINED_BY_CALL =
	'This call declines sampling requests (When the Server Asks the Model: Decline): no model was asked';

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
	/** Sampling requests answered for each call so far. */
	private readonly sampled = new WeakMap<ElicitationOptions, number>();

	/**
	 * `answers`: those of the reader of the session, which hands on a request too large to read.
	 * `sampling`: whether the connection declared sampling; without it, sampling is declined unread.
	 */
	constructor(client: Client, answers: LocalAnswers, sampling = false) {
		client.setRequestHandler(ElicitRequestSchema, (request) =>
			this.elicit(request.params as ElicitRequestFormParams),
		);
		if (sampling)
			client.setRequestHandler(CreateMessageRequestSchema, (request) =>
				this.sample(request.params),
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

	/**
	 * A sampling request answered by the model of the call it belongs to, within the call's limit;
	 * one that cannot be tied to a single call, or comes to a call that declines, is refused.
	 */
	private async sample(params: CreateMessageRequestParams): Promise<CreateMessageResultWithTools> {
		const method = 'sampling/createMessage';
		const { options, tiedBy } = this.target();
		const call = tiedBy === 'unknown' ? undefined : options[0];
		const refuse = (message: string) =>
			this.refuse({ method, params }, { code: SAMPLING_REFUSED, message });
		if (!call) return refuse(SAMPLING_UNTIED);
		const { sampling } = call;
		if (!sampling) return refuse(SAMPLING_DECLINED_BY_CALL);
		const count = (this.sampled.get(call) ?? 0) + 1;
		this.sampled.set(call, count);
		if (count > sampling.maxRequests)
			return refuse(
				`The server asked for more than ${sampling.maxRequests} model answers during one call (Requests per Call); this one was refused`,
			);
		let answer: SamplingAnswer;
		try {
			answer = await sampling.answer(params);
		} catch (error) {
			return refuse(`No model answer could be made: ${(error as Error).message}`);
		}
		call.onServerRequest?.({ method, params, answer: answer.result, usage: answer.usage, tiedBy });
		return answer.result;
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
