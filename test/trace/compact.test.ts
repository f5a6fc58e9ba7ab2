import type { TraceEntry } from '../../lib/conversation/types';
import { fingerprint } from '../../lib/json/canonical';
import {
	compactModelRequest,
	compactToolsList,
	expandTrace,
	TraceRebuildError,
} from '../../lib/trace/compact';
import { toJsonLines } from '../../lib/trace/jsonl';
import { readTrace, TraceReadError } from '../../lib/trace/read';

const tools = [
	{
		type: 'function',
		function: {
			name: 'echo',
			description: 'Echoes back the input string',
			parameters: { type: 'object', properties: { message: { type: 'string' } } },
		},
	},
];
const system = { role: 'system', content: 'You are precise and answer with the tools you have.' };
const user = { role: 'user', content: 'Echo every round number back to me, one call a round.' };
const call = (round: number) => ({
	role: 'assistant',
	content: null,
	tool_calls: [
		{
			id: `call_${round}`,
			type: 'function',
			function: { name: 'echo', arguments: `{"message":"round ${round}"}` },
		},
	],
});
const result = (round: number) => ({
	role: 'tool',
	tool_call_id: `call_${round}`,
	content: `Echo: round ${round}`,
});

/** The body a Chat Completions request of this round sends: the whole history, every tool. */
function body(round: number): Record<string, unknown> {
	const history = Array.from({ length: round - 1 }, (_, at) => [call(at + 1), result(at + 1)]);
	return { model: 'gpt-test', messages: [system, user, ...history.flat()], stream: false, tools };
}

function request(
	round: number,
	payload: unknown = body(round),
	dialect = 'openaiChat',
): TraceEntry {
	return { step: 'model.request', node: 'Model', round, at: '', dialect, payload };
}

/** The trace of `rounds` requests, each compacted against the trace before it, as the node writes it. */
function compactTrace(rounds: number): TraceEntry[] {
	const trace: TraceEntry[] = [];
	for (let round = 1; round <= rounds; round++)
		trace.push(compactModelRequest(request(round), trace));
	return trace;
}

describe('compact model requests', () => {
	it('keep the first request whole, and of later ones only the messages new since the last', () => {
		const [first, second, third] = compactTrace(3);
		expect(first).toEqual(request(1));
		expect(second).toMatchObject({
			compacted: ['messages', 'tools'],
			payload: {
				model: 'gpt-test',
				messages: { sameAsRound: 1, first: 2, then: [call(1), result(1)] },
				stream: false,
				tools: { sameAsRound: 1 },
			},
		});
		expect(third.payload).toMatchObject({
			messages: { sameAsRound: 2, first: 4, then: [call(2), result(2)] },
		});
		// The hash is of the whole body, as sent.
		expect(third.payloadSha256).toMatch(/^[0-9a-f]{64}$/);
	});

	it('are rebuilt to the exact bytes of every body, by expandTrace and by readTrace', () => {
		const trace = compactTrace(12);
		const sent = Array.from({ length: 12 }, (_, at) => JSON.stringify(body(at + 1)));
		const rebuilt = expandTrace(trace).map((entry) => JSON.stringify(entry.payload));
		expect(rebuilt).toEqual(sent);
		expect(readTrace({ trace }).map((entry) => JSON.stringify(entry.payload))).toEqual(sent);
		expect(readTrace(toJsonLines(trace)).map((entry) => JSON.stringify(entry.payload))).toEqual(
			sent,
		);
		// Rebuilt entries say nothing of how they were stored.
		expect(expandTrace(trace)[5]).not.toHaveProperty('compacted');
		expect(expandTrace(trace)[5]).not.toHaveProperty('payloadSha256');
	});

	it('grow with what is new, not with the whole history', () => {
		const trace = compactTrace(40);
		const sizes = trace.map((entry) => JSON.stringify(entry).length);
		expect(sizes[39]).toBe(sizes[20]);
		expect(sizes[39]).toBeLessThan(JSON.stringify(body(40)).length / 5);
	});

	it('keep a history that is not the last one plus new messages whole, as sent', () => {
		const trace = compactTrace(2);
		const edited = body(3);
		(edited.messages as unknown[])[0] = { role: 'system', content: 'Another system message.' };
		const entry = compactModelRequest(request(3, edited), trace);
		expect(entry.compacted).toEqual(['tools']);
		expect(entry.payload).toMatchObject({ messages: edited.messages });
		expect(JSON.stringify(expandTrace([...trace, entry])[2].payload)).toBe(JSON.stringify(edited));
	});

	it('refer only to requests of the same dialect, and leave payloads that are not objects', () => {
		const anthropic = compactModelRequest(request(2, body(2), 'anthropic'), compactTrace(1));
		expect(anthropic.compacted).toBeUndefined();
		const omitted = { ...request(2), payload: undefined, payloadOmitted: 'Metadata Only' };
		expect(compactModelRequest(omitted, compactTrace(1))).toBe(omitted);
	});

	it('that refer to a request the trace no longer holds fail to read, naming the entry', () => {
		const [, second, third] = compactTrace(3);
		expect(() => readTrace([second, third])).toThrow(TraceReadError);
		expect(() => readTrace([second, third])).toThrow(
			'Trace entry 1 (model.request, round 2) refers to the "messages" of the model.request of round 1, which the trace does not hold',
		);
	});

	it('that do not rebuild into the body sent (an earlier request changed) fail to read', () => {
		const trace = compactTrace(3);
		const changed = structuredClone(trace);
		(changed[0].payload as { messages: { content: string }[] }).messages[0].content = 'Changed.';
		expect(() => expandTrace(changed)).toThrow(TraceRebuildError);
		expect(() => readTrace(changed)).toThrow(
			'Trace entry 2 (model.request, round 2) did not rebuild into the body that was sent (its sha256 differs)',
		);
	});

	it('rebuild when round numbers repeat across dialects (a provider switched, rounds counted anew)', () => {
		const trace: TraceEntry[] = [];
		const write = (entry: TraceEntry) => trace.push(compactModelRequest(entry, trace));
		write(request(1));
		write(request(2));
		// Anthropic's bodies: the system prompt apart, its tools in its own shape.
		const anthropic = (round: number) => ({
			...body(round),
			model: 'claude-test',
			system: system.content,
			messages: (body(round).messages as unknown[]).slice(1),
			tools: [{ name: 'echo', description: 'Echoes back the input string', input_schema: {} }],
		});
		write(request(1, anthropic(1), 'anthropic'));
		write(request(2, anthropic(2), 'anthropic'));
		write(request(3));
		expect(trace[4].compacted).toEqual(['messages', 'tools']);
		expect(JSON.stringify(readTrace(trace)[4].payload)).toBe(JSON.stringify(body(3)));
		// …and the next request still refers to it, rather than falling back to whole bodies.
		write(request(4));
		expect(trace[5].compacted).toEqual(['messages', 'tools']);
	});

	it('that were edited on the way fail to read naming the entry, and the next request stays whole', () => {
		const edits: Array<(entry: { payload?: Record<string, unknown> }) => void> = [
			(entry) => delete entry.payload!.messages,
			(entry) => delete entry.payload,
			(entry) => ((entry.payload!.messages as Record<string, unknown>).then = { role: 'user' }),
			(entry) => ((entry.payload!.messages as Record<string, unknown>).sameAsRound = 'one'),
		];
		for (const edit of edits) {
			const trace = structuredClone(compactTrace(3));
			edit(trace[2] as { payload?: Record<string, unknown> });
			expect(() => readTrace(trace)).toThrow(
				/^Trace entry 3 \(model.request, round 3\) is compact, but its payload no longer holds the references it was written with \(messages, tools\)$/,
			);
			expect(compactModelRequest(request(4), trace).compacted).toBeUndefined();
		}
	});

	it('that lost their list of references fail to read, not pass their references off as the body sent', () => {
		for (const compacted of [undefined, 'messages']) {
			const trace = structuredClone(compactTrace(3)) as Array<Record<string, unknown>>;
			if (compacted === undefined) delete trace[2].compacted;
			else trace[2].compacted = compacted;
			expect(() => readTrace(trace as TraceEntry[])).toThrow(
				'Trace entry 3 (model.request, round 3) is compact (it keeps the sha256 of the body sent), but it lost the list of the parts it refers to ("compacted")',
			);
		}
	});

	it('leave a trace kept whole as it is', () => {
		const whole = [request(1), request(2), request(3)];
		expect(expandTrace(whole)).toEqual(whole);
		expect(readTrace(whole)).toEqual(whole);
	});
});

describe('compact tools.list entries', () => {
	const listed = [{ name: 'echo', inputSchema: { type: 'object' } }];
	const listing = (round: number, tools: unknown[]): TraceEntry => ({
		step: 'tools.list',
		node: 'List Tools',
		round,
		at: '',
		listHash: fingerprint(tools),
		payload: tools,
	});

	it('keep a list once: a later listing of the same tools names the round of the first', () => {
		const first = listing(0, listed);
		const again = compactToolsList(listing(3, listed), [first]);
		expect(again).not.toHaveProperty('payload');
		expect(again.payloadSameAsRound).toBe(0);
		expect(readTrace([first, again])[1]).toEqual(listing(3, listed));
	});

	it('keep a different list whole', () => {
		const other = [{ name: 'add', inputSchema: { type: 'object' } }];
		const entry = listing(3, other);
		expect(compactToolsList(entry, [listing(0, listed)])).toBe(entry);
	});

	it('keep whole a listing of the same tools in other bytes (keys in another order), read back exactly', () => {
		const reordered = [{ inputSchema: { type: 'object' }, name: 'echo' }];
		const first = listing(0, listed);
		const entry = listing(3, reordered);
		expect(entry.listHash).toBe(first.listHash);
		expect(compactToolsList(entry, [first])).toBe(entry);
		// The last listing of that hash is the reordered one, which these bytes are not: kept whole.
		const again = compactToolsList(listing(5, listed), [first, entry]);
		expect(again.payload).toEqual(listed);
		expect(JSON.stringify(readTrace([first, entry, again])[2].payload)).toBe(
			JSON.stringify(listed),
		);
	});

	it('that name a listing changed on the way fail to read, rather than take the changed tools', () => {
		const first = listing(0, listed);
		const again = compactToolsList(listing(3, listed), [first]);
		const edited = { ...first, payload: [{ ...listed[0], annotations: { readOnlyHint: true } }] };
		expect(() => readTrace([edited, again])).toThrow(
			'Trace entry 2 (tools.list, round 3) did not rebuild into the tools that were listed (its sha256 differs): the listing it refers to was changed',
		);
	});

	it('that name a listing the trace does not hold fail to read', () => {
		const again = compactToolsList(listing(3, listed), [listing(0, listed)]);
		expect(() => readTrace([again])).toThrow(
			'Trace entry 1 (tools.list, round 3) lists the same tools as the tools.list of round 0, which the trace does not hold',
		);
	});
});
