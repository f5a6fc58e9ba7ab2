import { excerpt, isRecord } from '../json/value';
import { DIALECTS } from '../dialects/registry';
import type { Dialect, ModelTurn, ToolNameMap } from '../dialects/types';
import { canonicalJson, fingerprint } from '../json/canonical';
import { TraceReadError, type RecordedEntry } from './read';

/** What two runs of a conversation are compared on, round by round. */
export type StoryStepName =
	'tools.list' | 'tools.offered' | 'model.choice' | 'call.arguments' | 'call.result';

/** A step's comparable facts as text: two runs agree on a step when its facts are equal. */
export type StoryFacts = Record<string, string>;

export interface StoryStep {
	step: StoryStepName;
	/**
	 * Which conversation of the trace the step is in, from 0: a workflow that counts the rounds of
	 * each new question anew starts the next one where a round number comes again.
	 */
	conversation: number;
	round: number;
	/** Where the step sits in its round; the steps of two stories in the same place are compared. */
	place: Array<number | string>;
	/** Names the step for a reader: "model choice", "call 1 add result". */
	label: string;
	facts: StoryFacts;
}

// The order of steps within a round; a listing after the round's request comes after its calls.
const LISTED_FIRST = 0;
const OFFERED = 1;
const CHOSEN = 2;
const CALLED = 3;
const LISTED_LAST = 4;

// Responses are parsed for their calls only; the names the node mapped back are in the entry's `toolCalls`.
const VENDOR_NAMES: ToolNameMap = { toVendor: (name) => name, fromVendor: (name) => name };

/**
 * A trace as the story two runs are compared on. Only the steps below count; what differs between
 * runs anyway (times, durations, vendor ids, usage, attempts, headers, node names) is left out, and
 * a call is known by its round, its position among the model's calls and its tool: its id only ties
 * the entries of one trace together.
 * `tools.call.request` is left out too: it repeats the arguments `arguments.validation` holds.
 */
export function storyOf(trace: readonly RecordedEntry[]): StoryStep[] {
	const steps: StoryStep[] = [];
	let calls = new CallPositions();
	const requestedRounds = new Set<number>();
	const listings = new Map<string, number>();
	let requests = 0;
	let conversation = 0;
	let highest = -1;
	let lastRequest = -1;
	const push = (step: Omit<StoryStep, 'conversation'>) =>
		steps.push({
			...step,
			conversation,
			label: conversation === 0 ? step.label : `conversation ${conversation + 1}: ${step.label}`,
		});
	for (const [index, entry] of trace.entries()) {
		// Without a recorded round, the model requests so far say which round a step belongs to.
		const round = entry.round ?? (entry.step === 'model.request' ? requests + 1 : requests);
		// Rounds only grow within a conversation; one that comes again starts the next conversation.
		if (round < highest || (entry.step === 'model.request' && round <= lastRequest)) {
			conversation++;
			[highest, lastRequest, calls] = [-1, -1, new CallPositions()];
			requestedRounds.clear();
			listings.clear();
		}
		highest = Math.max(highest, round);
		if (entry.step === 'model.request') lastRequest = round;
		switch (entry.step) {
			case 'tools.list': {
				const server =
					isRecord(entry.server) && typeof entry.server.label === 'string'
						? entry.server.label
						: '';
				const listing = `${round} ${server}`;
				const occurrence = listings.get(listing) ?? 0;
				listings.set(listing, occurrence + 1);
				const place = [requestedRounds.has(round) ? LISTED_LAST : LISTED_FIRST, server, occurrence];
				const label = server ? `tools listed by ${server}` : 'tools listed';
				push({ step: 'tools.list', round, place, label, facts: listedFacts(entry) });
				break;
			}
			case 'model.request':
				requests++;
				requestedRounds.add(round);
				push({
					step: 'tools.offered',
					round,
					place: [OFFERED],
					label: 'tools offered',
					facts: offeredFacts(entry),
				});
				break;
			case 'model.response':
				for (const id of calledIds(entry)) calls.positionOf(round, id);
				push({
					step: 'model.choice',
					round,
					place: [CHOSEN],
					label: 'model choice',
					facts: choiceFacts(entry, index),
				});
				break;
			case 'arguments.validation':
			case 'tools.call.result': {
				const tool = String(entry.tool ?? '');
				const position = calls.positionOf(round, String(entry.callId ?? tool));
				const [step, part, facts] =
					entry.step === 'arguments.validation'
						? (['call.arguments', 'arguments', argumentFacts(entry)] as const)
						: (['call.result', 'result', resultFacts(entry)] as const);
				const place = [CALLED, position, tool, step === 'call.arguments' ? 0 : 1];
				push({ step, round, place, label: `call ${position + 1} ${tool} ${part}`, facts });
				break;
			}
		}
	}
	return steps.sort(compareSteps);
}

/** Orders steps by conversation, round, then place: negative when `a` comes first, 0 when they are compared. */
export function compareSteps(
	a: Pick<StoryStep, 'conversation' | 'round' | 'place'>,
	b: Pick<StoryStep, 'conversation' | 'round' | 'place'>,
): number {
	if (a.conversation !== b.conversation) return a.conversation - b.conversation;
	if (a.round !== b.round) return a.round - b.round;
	for (let index = 0; index < Math.max(a.place.length, b.place.length); index++) {
		const [left, right] = [a.place[index], b.place[index]];
		if (left === right) continue;
		if (left === undefined || right === undefined) return left === undefined ? -1 : 1;
		if (typeof left === 'number' && typeof right === 'number') return left - right;
		return String(left) < String(right) ? -1 : 1;
	}
	return 0;
}

/** The facts on one line: "tools: add; arguments: [{"a":2}]". */
export function describeFacts(facts: StoryFacts): string {
	return Object.entries(facts)
		.map(([name, value]) => `${name}: ${value}`)
		.join('; ');
}

/** A call's position among its round's calls, in the model's order when the response named them. */
class CallPositions {
	private readonly rounds = new Map<number, Map<string, number>>();

	positionOf(round: number, callId: string): number {
		const positions = this.rounds.get(round) ?? new Map<string, number>();
		this.rounds.set(round, positions);
		if (!positions.has(callId)) positions.set(callId, positions.size);
		return positions.get(callId)!;
	}
}

function calledIds(entry: RecordedEntry): string[] {
	return recordsOf(entry.toolCalls).flatMap((call) =>
		typeof call.id === 'string' ? [call.id] : [],
	);
}

function calledNames(entry: RecordedEntry): string[] {
	return recordsOf(entry.toolCalls).map((call) => String(call.name));
}

function listedFacts(entry: RecordedEntry): StoryFacts {
	if (entry.payload === undefined)
		return omitted(entry, { toolCount: entry.toolCount, listHash: entry.listHash });
	const listed = isRecord(entry.payload) ? entry.payload.tools : entry.payload;
	return toolFacts(
		recordsOf(listed).map((tool) => ({
			name: tool.name,
			schema: { inputSchema: tool.inputSchema, outputSchema: tool.outputSchema },
			// What a model reads of a tool, and the hints an approval rule goes by.
			described: {
				title: tool.title,
				description: tool.description,
				annotations: tool.annotations,
			},
		})),
	);
}

function offeredFacts(entry: RecordedEntry): StoryFacts {
	if (entry.payload === undefined) return omitted(entry, {});
	const declared = isRecord(entry.payload) ? recordsOf(entry.payload.tools) : [];
	// Gemini groups its functions in one tool; Chat Completions and Ollama wrap each in `function`.
	const definitions = declared
		.flatMap((tool) =>
			Array.isArray(tool.functionDeclarations) ? recordsOf(tool.functionDeclarations) : [tool],
		)
		.map((tool) => (isRecord(tool.function) ? tool.function : tool));
	return toolFacts(
		definitions.map((tool) => ({
			name: tool.name,
			schema: tool.parameters ?? tool.input_schema ?? tool.parametersJsonSchema,
			described: { description: tool.description },
		})),
	);
}

interface ToolFacts {
	name: unknown;
	schema: unknown;
	/** What else is told of the tool (its description…), compared as one hash. */
	described: Record<string, unknown>;
}

/** Tool names, one hash of their schemas and one of their descriptions; the order they were listed in does not count. */
function toolFacts(tools: ToolFacts[]): StoryFacts {
	const named = tools.filter(
		(tool): tool is ToolFacts & { name: string } => typeof tool.name === 'string',
	);
	const hashOf = (part: (tool: ToolFacts) => unknown) =>
		fingerprint(Object.fromEntries(named.map((tool) => [tool.name, part(tool) ?? null])));
	return {
		tools:
			named
				.map((tool) => tool.name)
				.sort()
				.join(', ') || '(none)',
		schemas: hashOf((tool) => tool.schema),
		descriptions: hashOf((tool) => tool.described),
	};
}

function choiceFacts(entry: RecordedEntry, index: number): StoryFacts {
	const names = calledNames(entry);
	if (entry.payload === undefined)
		return omitted(entry, names.length > 0 ? { tools: names.join(', ') } : {});
	const dialect: Dialect | undefined = DIALECTS[String(entry.dialect) as keyof typeof DIALECTS];
	if (!dialect) {
		const known = Object.keys(DIALECTS).join(', ');
		throw new TraceReadError(
			`Trace entry ${index + 1} (model.response) has dialect ${excerpt(entry.dialect)}; expected one of ${known}`,
		);
	}
	let turn: ModelTurn;
	try {
		turn = dialect.parseResponse(entry.payload, VENDOR_NAMES);
	} catch (error) {
		return { error: (error as Error).message };
	}
	if (turn.toolCalls.length === 0) return { answer: turn.message.content ?? '' };
	// Text beside tool calls ("Let me look that up") changes from run to run; the calls are the choice.
	const called = turn.toolCalls.map((call) =>
		call.arguments ? canonicalJson(call.arguments) : JSON.stringify(call.rawArguments),
	);
	return {
		tools: turn.toolCalls.map((call, position) => names[position] ?? call.name).join(', '),
		arguments: `[${called.join(',')}]`,
	};
}

function argumentFacts(entry: RecordedEntry): StoryFacts {
	const validation = String(entry.status ?? '');
	if (entry.payload === undefined) return omitted(entry, { validation });
	return {
		validation,
		arguments: typeof entry.payload === 'string' ? entry.payload : canonicalJson(entry.payload),
	};
}

function resultFacts(entry: RecordedEntry): StoryFacts {
	const status = String(entry.status ?? '');
	const result = entry.payload;
	if (result === undefined) return omitted(entry, { status });
	if (!isRecord(result) || !Array.isArray(result.content)) {
		return { status, content: typeof result === 'string' ? result : canonicalJson(result) };
	}
	// One text part as it reads; several parts as the list of them, counted (so that one text
	// '["A","B"]' is not taken for the texts "A" and "B", nor "A\nB" for them); texts as strings,
	// other parts (images, resources, a text that is no string) as the JSON that names their data.
	const readable = (part: unknown) =>
		isRecord(part) && part.type === 'text' && typeof part.text === 'string' ? part.text : part;
	const [only] = result.content;
	const single = result.content.length === 1 && typeof readable(only) === 'string';
	return {
		status,
		...(single
			? { content: readable(only) as string }
			: {
					parts: String(result.content.length),
					content: canonicalJson(result.content.map(readable)),
				}),
		...(result.structuredContent !== undefined && {
			structuredContent: canonicalJson(result.structuredContent),
		}),
	};
}

/**
 * The facts a step without its payload still has: its metadata, the payload's size, and that the
 * payload is missing (a diff says so rather than call two such steps equal).
 */
function omitted(entry: RecordedEntry, metadata: Record<string, unknown>): StoryFacts {
	const known = Object.entries({ ...metadata, bytes: entry.bytes }).filter(
		([, value]) => value !== undefined,
	);
	return {
		...Object.fromEntries(known.map(([name, value]) => [name, String(value)])),
		payload: OMITTED,
	};
}

/** The `payload` fact of a step whose payload was left out. */
export const OMITTED = 'omitted';

function recordsOf(value: unknown): Array<Record<string, unknown>> {
	return Array.isArray(value) ? value.filter(isRecord) : [];
}
