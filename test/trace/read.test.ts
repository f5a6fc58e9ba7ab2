import { toJsonLines } from '../../lib/trace/jsonl';
import { readTrace, TraceReadError } from '../../lib/trace/read';
import { addThenAnswer, traceOf } from './traces';

const trace = traceOf(addThenAnswer);

describe('readTrace', () => {
	it("reads an item's json, a list of entries, and the text of either", () => {
		expect(readTrace({ messages: [], trace })).toEqual(trace);
		expect(readTrace(trace)).toEqual(trace);
		expect(readTrace(JSON.stringify({ trace }, null, 2))).toEqual(trace);
		expect(readTrace(JSON.stringify(trace))).toEqual(trace);
	});

	it('reads JSON Lines, with Windows line ends and blank lines, and a single line', () => {
		expect(readTrace(toJsonLines(trace))).toEqual(trace);
		expect(readTrace(`\n${toJsonLines(trace).replace(/\n/g, '\r\n')}\n`)).toEqual(trace);
		expect(readTrace(toJsonLines(trace.slice(0, 1)))).toEqual(trace.slice(0, 1));
	});

	it('reads a text saved with a UTF-8 byte order mark', () => {
		expect(readTrace(`\uFEFF${JSON.stringify({ trace })}`)).toEqual(trace);
		expect(readTrace(`\uFEFF${toJsonLines(trace)}`)).toEqual(trace);
	});

	it('reads an empty trace', () => {
		expect(readTrace({ trace: [] })).toEqual([]);
		expect(readTrace('[]')).toEqual([]);
	});

	it.each([
		['an empty text', '  \n', /^The text is empty; expected an item's json/],
		['a broken JSON document', '{\n  "trace": [\n}', /^Not JSON: /],
		[
			'JSON Lines broken on line 3',
			`${toJsonLines(trace.slice(0, 2))}{"step": `,
			/^Not JSON Lines: Line 3 is not JSON: /,
		],
		['a number', 42, /^Not a trace: expected .*, got 42$/],
		['a JSON string', '"hello"', /^Not a trace: .*, got "hello"$/],
		['an object without a trace', { messages: [] }, /^Not a trace: /],
		[
			'a trace that is not a list',
			{ trace: 'none' },
			/^The item's "trace" must be a list, but it is a string$/,
		],
		[
			'an entry without a step',
			[trace[0], { node: 'Model' }],
			/^Trace entry 2 has no "step": \{"node":"Model"\}$/,
		],
		[
			'a JSON Lines entry without a step',
			'{"step":"tools.list"}\n[1]\n',
			/^Trace entry 2 has no "step": \[1\]$/,
		],
		[
			'a round that is no whole number',
			[{ ...trace[0], round: 'one' }],
			/^Trace entry 1 \(tools\.list\) has a "round" that is not a whole number: "one"$/,
		],
	])('refuses %s, saying what it expected', (_what, source, message) => {
		expect(() => readTrace(source)).toThrow(TraceReadError);
		expect(() => readTrace(source)).toThrow(message);
	});
});
