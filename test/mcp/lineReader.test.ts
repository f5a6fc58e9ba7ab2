import { LineReader, type SkippedLine } from '../../lib/mcp/lineReader';

function reader(maxBytes: number) {
	const lines: string[] = [];
	const skipped: SkippedLine[] = [];
	const lineReader = new LineReader(
		() => maxBytes,
		(line) => lines.push(line),
		(line) => skipped.push(line),
	);
	return { push: (text: string) => lineReader.push(Buffer.from(text)), lines, skipped };
}

describe('LineReader', () => {
	it('splits lines across chunks, drops carriage returns and blank lines', () => {
		const { push, lines } = reader(1024);
		push('{"a":');
		push('1}\r\n\n  \n{"b"');
		push(':2}\n{"c":3}');
		expect(lines).toEqual(['{"a":1}', '{"b":2}']);
		push('\n');
		expect(lines).toEqual(['{"a":1}', '{"b":2}', '{"c":3}']);
	});

	it('counts a line longer than the limit instead of holding it, keeps its ends, and reads on', () => {
		const { push, lines, skipped } = reader(1000);
		const start = '{"jsonrpc":"2.0","id":7,"result":{"text":"';
		const end = '"},"end":"tail"}';
		push(start);
		for (let chunk = 0; chunk < 100; chunk++) push('x'.repeat(64 * 1024));
		push(`${end}\n{"next":true}\n`);
		expect(skipped).toHaveLength(1);
		const [line] = skipped;
		expect(line.bytes).toBe(start.length + 100 * 64 * 1024 + end.length);
		expect(line.head.startsWith('{"jsonrpc":"2.0","id":7,"result":{"text":"xxx')).toBe(true);
		expect(line.head).toHaveLength(256);
		expect(line.tail.endsWith('xxx"},"end":"tail"}')).toBe(true);
		expect(line.tail).toHaveLength(256);
		expect(lines).toEqual(['{"next":true}']);
	});
});
