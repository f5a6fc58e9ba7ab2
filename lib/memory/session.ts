import { isRecord } from '../json/value';
import { addedUsage, NO_USAGE, usageSince } from '../usage/totals';
import { ConversationError, describeType, readConversation } from '../conversation/read';
import type { Conversation, ConversationUsage, Message, ToolMessage } from '../conversation/types';

/**
 * Chat memory: a session's conversation kept between its messages, one stored row per message
 * (a turn: the person's message and all the model and its tools added in answer), appended and
 * never rewritten, so two messages of one session at once both keep what they added and a write
 * cut short leaves the row whole or absent. Loading joins a session's turns in order, trims the
 * oldest whole turns to the context budget and appends the new message. docs/item-contract.md
 * describes the stored row and the item's `session`.
 */

/** One turn as the memory table holds it: the messages as JSON text. */
/** A conversation's new turn: its messages from the person's on, and what it used. */
export interface NewTurn {
	sessionId: string;
	turn: number;
	messages: Message[];
	usage?: ConversationUsage;
}

export interface TurnRow {
	sessionId: string;
	/** The turn's place in the session: 1 for its first message. */
	turn: number;
	/** JSON text of the turn's messages, in the item contract's form. */
	messages: string;
	/** JSON text of what the turn used (model and tool calls, tokens, cost); '' when nothing was counted. */
	usage: string;
}

/** One stored turn, read and checked. */
export interface StoredTurn {
	turn: number;
	messages: Message[];
	usage?: ConversationUsage;
}

/** What the loaded item carries for the save at its end. */
export interface SessionMark {
	id: string;
	/** The number the turn is stored as: one past the last stored. */
	turn: number;
	/** Where the new message is in the item's messages: it and what follows make the turn. */
	newFrom: number;
	/** The session's totals when loaded: what the turn used is the item's `usage` less these. */
	usageAtLoad?: ConversationUsage;
}

/** Limits on what of the session is sent to the model; 0 is no limit. */
export interface ContextBudget {
	maxMessages: number;
	/** Estimated as a token per 4 characters of the messages' JSON. */
	maxTokens: number;
	/** A tool result of an earlier turn longer than this many characters becomes a stub that says so. */
	shortenToolResultsOver: number;
}

/** What loading kept and left out, for the trace. */
export interface LoadReport {
	turnsStored: number;
	turnsKept: number;
	messagesKept: number;
	estimatedTokens: number;
	/** Oldest turns left out to keep within the budget. */
	trimmed?: { turns: number; messages: number; reason: string };
	/** Earlier tool results shortened to a stub. */
	shortened?: Array<{ turn: number; tool: string; characters: number }>;
	/** Turns stored under one number: messages of the session answered at the same time. */
	concurrentTurns?: number[];
}

export class SessionError extends Error {}

/**
 * The session's stored turns in order, from the rows a memory table gave (an item without a turn,
 * as a table node outputs when it found none, counts for none). A row of another session, or one
 * that breaks the item contract (edited by hand, written by another version), is refused naming
 * the session and the turn.
 */
export function readStoredTurns(rows: readonly unknown[], sessionId: string): StoredTurn[] {
	const turns = rows
		.filter((row) => !(isRecord(row) && row.turn === undefined && row.messages === undefined))
		.map((row, index) => ({ ...readRow(row, sessionId, index), order: orderOf(row, index) }));
	return turns
		.sort((a, b) => a.turn - b.turn || a.order - b.order)
		.map(({ order: _order, ...turn }) => turn);
}

function readRow(row: unknown, sessionId: string, index: number): StoredTurn {
	const at = `Session '${sessionId}': stored row ${index + 1}`;
	if (!isRecord(row)) throw new SessionError(`${at} is ${describeType(row)}, not a row`);
	if (row.sessionId !== undefined && String(row.sessionId) !== sessionId)
		throw new SessionError(
			`${at} belongs to session '${String(row.sessionId)}': the table's rows must be filtered by sessionId`,
		);
	const turn =
		typeof row.turn === 'string' && /^\s*\d+\s*$/.test(row.turn) ? Number(row.turn) : row.turn;
	if (typeof turn !== 'number' || !Number.isInteger(turn) || turn < 1)
		throw new SessionError(
			`${at} has the turn ${JSON.stringify(row.turn)}; a turn is a whole number from 1`,
		);
	const where = `Session '${sessionId}', turn ${turn}`;
	let messages: unknown = row.messages;
	if (typeof messages === 'string') {
		try {
			messages = JSON.parse(messages);
		} catch (error) {
			throw new SessionError(`${where}: its messages are not JSON (${(error as Error).message})`);
		}
	}
	if (!Array.isArray(messages) || messages.length === 0)
		throw new SessionError(
			`${where}: its messages must be a list of messages, but they are ${describeType(messages)}`,
		);
	const usage = parsedJson(row.usage, () => `${where}: its usage is not JSON`);
	try {
		const read = readConversation({ messages, ...(usage !== undefined && { usage }) });
		return { turn, messages: read.messages, ...(read.usage && { usage: read.usage }) };
	} catch (error) {
		if (error instanceof ConversationError)
			throw new SessionError(
				`${where}: ${error.message.replace("the item's 'messages'", 'its messages').replace("The item's 'usage'", 'Its usage')}`,
			);
		throw error;
	}
}

/** A column holding JSON text (or, from a table that stores it so, the value itself); none when empty. */
function parsedJson(value: unknown, what: () => string): unknown {
	if (value === undefined || value === null || value === '') return undefined;
	if (typeof value !== 'string') return value;
	try {
		return JSON.parse(value);
	} catch (error) {
		throw new SessionError(`${what()} (${(error as Error).message})`);
	}
}

/** The order rows were written in, where the table tells it (its row id): rows of one turn keep it. */
function orderOf(row: unknown, index: number): number {
	return isRecord(row) && typeof row.id === 'number' ? row.id : index;
}

/**
 * The conversation to continue: the system message, the session's turns as far as the budget
 * allows (oldest whole turns left out first, so a call is never parted from its result), then the
 * new message. The new message is never left out, even when it alone is over the budget.
 */
export function continueConversation(
	turns: readonly StoredTurn[],
	next: { system: string; message: string; budget: ContextBudget },
): { messages: Message[]; newFrom: number; usage?: ConversationUsage; report: LoadReport } {
	const { budget } = next;
	const shortened: NonNullable<LoadReport['shortened']> = [];
	const kept = turns.map((turn) => ({
		turn: turn.turn,
		messages: shortenToolResults(turn, budget.shortenToolResultsOver, shortened),
	}));
	const opening: Message[] =
		next.system.trim() === '' ? [] : [{ role: 'system', content: next.system }];
	const message: Message = { role: 'user', content: next.message };
	// Each message's JSON is measured once, not at every turn trimmed: a list's JSON is an opening
	// bracket, then each message's JSON followed by a comma or the closing bracket.
	const jsonSize = (list: readonly Message[]) =>
		list.reduce((size, each) => size + JSON.stringify(each).length + 1, 0);
	const turnSizes = kept.map((turn) => jsonSize(turn.messages));
	let count = opening.length + 1 + kept.reduce((sum, turn) => sum + turn.messages.length, 0);
	let jsonChars =
		1 + jsonSize(opening) + jsonSize([message]) + turnSizes.reduce((sum, size) => sum + size, 0);
	let trimmed: LoadReport['trimmed'];
	while (kept.length > 0) {
		const reason = overBudget(count, jsonChars, budget);
		if (reason === '') break;
		const oldest = kept.shift()!;
		count -= oldest.messages.length;
		jsonChars -= turnSizes.shift()!;
		trimmed = {
			turns: (trimmed?.turns ?? 0) + 1,
			messages: (trimmed?.messages ?? 0) + oldest.messages.length,
			reason: trimmed?.reason ?? reason,
		};
	}
	const messages = [...opening, ...kept.flatMap((turn) => turn.messages), message];
	// The session's totals count every turn, those left out of the messages too.
	const counted = turns.flatMap((turn) => (turn.usage ? [turn.usage] : []));
	const usage = counted.length > 0 ? counted.reduce(addedUsage, NO_USAGE) : undefined;
	const seen = new Set<number>();
	const concurrent = new Set<number>();
	for (const { turn } of turns) (seen.has(turn) ? concurrent : seen).add(turn);
	const concurrentTurns = [...concurrent];
	return {
		messages,
		newFrom: messages.length - 1,
		...(usage && { usage }),
		report: {
			turnsStored: turns.length,
			turnsKept: kept.length,
			messagesKept: messages.length,
			estimatedTokens: tokensOfJson(jsonChars),
			...(trimmed && { trimmed }),
			...(shortened.length > 0 && { shortened }),
			...(concurrentTurns.length > 0 && { concurrentTurns }),
		},
	};
}

/** Why messages so many and so long are over the budget; '' when they are within it. */
function overBudget(count: number, jsonChars: number, budget: ContextBudget): string {
	if (budget.maxMessages > 0 && count > budget.maxMessages)
		return `Max Messages is ${budget.maxMessages}`;
	if (budget.maxTokens > 0 && tokensOfJson(jsonChars) > budget.maxTokens)
		return `Max Tokens is ${budget.maxTokens} (estimated)`;
	return '';
}

/** A rough count, as the budget needs no vendor's tokenizer: one token per 4 characters of JSON. */
function tokensOfJson(jsonChars: number): number {
	return Math.ceil(jsonChars / 4);
}

/** The same count for a list of messages. */
export function estimatedTokens(messages: readonly Message[]): number {
	return tokensOfJson(JSON.stringify(messages).length);
}

function shortenToolResults(
	turn: StoredTurn,
	over: number,
	shortened: NonNullable<LoadReport['shortened']>,
): Message[] {
	if (over <= 0) return turn.messages;
	return turn.messages.map((message) => {
		if (message.role !== 'tool' || message.content.length <= over) return message;
		const tool = message.name ?? 'a tool';
		shortened.push({ turn: turn.turn, tool, characters: message.content.length });
		const { structuredContent: _structured, ...rest } = message;
		return {
			...rest,
			content: `[The result of ${tool} in an earlier message, ${message.content.length} characters, is left out here to keep the conversation short. Call the tool again if it is needed.]`,
		} satisfies ToolMessage;
	});
}

/**
 * The row that stores the conversation's new turn: its messages from the new message on.
 * Attachments are left out of tool messages (the binary data they name stays with this item, not
 * the table); a conversation with calls still pending is refused, as its next load would send
 * calls without answers.
 */
export function newTurn(conversation: Conversation, session: unknown): NewTurn {
	const mark = readSessionMark(session);
	if (conversation.toolCalls.length > 0)
		throw new SessionError(
			`Session '${mark.id}': the conversation still has ${conversation.toolCalls.length} tool calls pending (${conversation.toolCalls.map((call) => call.name).join(', ')}); save it once the model answered (by Final Answer)`,
		);
	const turn = conversation.messages.slice(mark.newFrom);
	if (turn[0]?.role !== 'user')
		throw new SessionError(
			`Session '${mark.id}': message ${mark.newFrom + 1} is not the person's message the turn began with; were messages removed between the load and the save?`,
		);
	const stored = turn.map((message) => {
		if (message.role !== 'tool' || message.attachments === undefined) return message;
		const { attachments: _attachments, ...rest } = message;
		return rest;
	});
	const { usage } = conversation;
	const used = usage && (mark.usageAtLoad ? usageSince(usage, mark.usageAtLoad) : usage);
	return { sessionId: mark.id, turn: mark.turn, messages: stored, ...(used && { usage: used }) };
}

/** The row that stores a turn, its messages as given (redacted, say) or as they are. */
export function turnRow(turn: NewTurn, messages: unknown = turn.messages): TurnRow {
	return {
		sessionId: turn.sessionId,
		turn: turn.turn,
		messages: JSON.stringify(messages),
		usage: turn.usage ? JSON.stringify(turn.usage) : '',
	};
}

function readSessionMark(session: unknown): SessionMark {
	if (
		!isRecord(session) ||
		typeof session.id !== 'string' ||
		typeof session.turn !== 'number' ||
		typeof session.newFrom !== 'number'
	)
		throw new SessionError(
			"The item has no 'session' (id, turn, newFrom): only a conversation begun by Chat Memory (Load) can be saved as a turn",
		);
	const { id, turn, newFrom, usageAtLoad } = session;
	if (usageAtLoad === undefined) return { id, turn, newFrom };
	// Read as the item's own totals are: a mark edited by hand is refused, naming the part.
	const read = readConversation({ usage: usageAtLoad }).usage;
	return { id, turn, newFrom, ...(read && { usageAtLoad: read }) };
}
