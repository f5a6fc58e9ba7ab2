/**
 * What a wire module implements: one vendor's side of a model API, for the local stand-in
 * (server.ts) that replaces it because no model API is reachable where the tests run. The core
 * records requests and hands out scripted turns; a wire module says which paths the vendor serves,
 * how it checks credentials and requests, and how it writes answers, streams, errors and model
 * lists, following the vendor's API reference and published captures of its replies.
 */
import { randomBytes } from 'node:crypto';
import type { AnswerTurn, ErrorFields } from './turns';

export interface WireRequest {
	method: string;
	/** Path and query as sent. */
	url: string;
	pathname: string;
	query: URLSearchParams;
	/** Lower-cased names, repeated headers joined with `, `. */
	headers: Record<string, string>;
	/** The parsed JSON body; undefined when empty or not JSON. */
	body: unknown;
	/** The body as sent, which tells an empty body from one that is not JSON. */
	text: string;
}

export interface ModelCall {
	model: string;
	stream: boolean;
}

export type Route = { kind: 'models' } | ({ kind: 'generate' } & ModelCall);

/** A whole reply; string bodies are sent as they are, others as JSON. */
export interface WireReply {
	status: number;
	headers?: Record<string, string>;
	body: unknown;
}

/** A streamed reply: each frame is written on its own, so a cut can fall between any two. */
export interface WireStream {
	headers: Record<string, string>;
	frames: string[];
}

/** What `models` may list: ids, or whole entries in the vendor's shape. */
export type ModelEntry = string | object;

export interface Wire {
	/** What follows `http://host:port` in the Base URL a user gives for this vendor. */
	basePath: string;
	/** Headers the vendor puts on every reply, such as request ids. */
	replyHeaders(): Record<string, string>;
	/** A model call or the model list; undefined for what the vendor does not serve. */
	route(request: WireRequest): Route | undefined;
	/** The vendor's refusal of missing or wrong credentials (and required headers), if it would refuse. */
	checkAuth(request: WireRequest, apiKey: string | undefined): WireReply | undefined;
	/** The checks the vendor makes before generating, failing as it fails. */
	validate(request: WireRequest): WireReply | undefined;
	answer(turn: AnswerTurn, call: ModelCall, request: WireRequest): WireReply;
	stream(turn: AnswerTurn, call: ModelCall, request: WireRequest): WireStream;
	/** The vendor's error reply for `status`, its usual wording unless `fields` say otherwise. */
	error(status: number, fields?: ErrorFields, retryAfterSeconds?: number): WireReply;
	notFound(request: WireRequest): WireReply;
	modelList(models: ModelEntry[] | undefined): unknown;
}

export interface WireOptions {
	/** Gemini only: whether the first functionCall part of a turn carries a thoughtSignature (Gemini 3 does). */
	thoughtSignatures?: boolean;
}

export const BASE62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** `prefix` and `length` characters of `alphabet`, drawn from `seed` (hex) when given, else at random. */
export function vendorId(prefix: string, length: number, seed?: string, alphabet = BASE62): string {
	const bytes = seed ? Buffer.from(seed, 'hex') : randomBytes(length);
	return (
		prefix + Array.from(bytes.subarray(0, length), (b) => alphabet[b % alphabet.length]).join('')
	);
}

export function randomHex(length: number): string {
	return randomBytes(Math.ceil(length / 2))
		.toString('hex')
		.slice(0, length);
}

/** Piece lengths in code points, cycled: they land mid-key, mid-value and between `\` and what it escapes. */
const PIECE_LENGTHS = [1, 4, 2, 7, 3, 5];

/** Splits text as vendors that stream pieces split it: unevenly, ignoring JSON structure. */
export function splitAwkwardly(text: string): string[] {
	const points = Array.from(text);
	const pieces: string[] = [];
	for (let at = 0, n = 0; at < points.length; n++) {
		const length = PIECE_LENGTHS[n % PIECE_LENGTHS.length];
		pieces.push(points.slice(at, at + length).join(''));
		at += length;
	}
	return pieces;
}

/** Arguments as the vendors that send objects need them; undefined when they are not a JSON object. */
export function argumentsObject(text: string): Record<string, unknown> | undefined {
	if (text.trim() === '') return {};
	try {
		const value: unknown = JSON.parse(text);
		return typeof value === 'object' && value !== null && !Array.isArray(value)
			? (value as Record<string, unknown>)
			: undefined;
	} catch {
		return undefined;
	}
}

export const SSE_HEADERS = {
	'content-type': 'text/event-stream; charset=utf-8',
	'cache-control': 'no-cache',
};

/** One server-sent event; vendors that name their events send `event:` before `data:`. */
export function sseFrame(data: unknown, event?: string): string {
	return `${event === undefined ? '' : `event: ${event}\n`}data: ${JSON.stringify(data)}\n\n`;
}

export function isRecord(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
