import { JsonLinesError, parseJsonLines, toJsonLines } from '../../lib/trace/jsonl';
import { readTrace } from '../../lib/trace/read';
import { addThenAnswer, traceOf } from './traces';

describe('JSON Lines', () => {
	const trace = traceOf(addThenAnswer);

	it('writes one entry per line, each line ending in a newline, and reads back the same trace', () => {
		const text = toJsonLines(trace);
		const lines = text.split('\n');
		expect(lines).toHaveLength(trace.length + 1);
		expect(lines.at(-1)).toBe('');
		expect(lines.slice(0, -1).map((line) => JSON.parse(line))).toEqual(trace);
		expect(readTrace(text)).toEqual(trace);
	});

	it('writes nothing for an empty trace', () => {
		expect(toJsonLines([])).toBe('');
	});

	it('names the first line that is not JSON, counting blank lines', () => {
		expect(parseJsonLines('{"a":1}\n\n{"b":2}\n')).toEqual([{ a: 1 }, { b: 2 }]);
		const parse = () => parseJsonLines('{"a":1}\n\nnot json\n');
		expect(parse).toThrow(JsonLinesError);
		expect(parse).toThrow(/^Line 3 is not JSON: /);
	});
});
