import { SseLines, type SseLine } from '../../lib/mcp/sseLines';

/** An SseLines over `maxBytes`, stopping at a cut line when `stopAtCut`; what it passed on and told. */
function scanner(maxBytes: number, stopAtCut = false) {
	const passed: Buffer[] = [];
	const cut: SseLine[] = [];
	const ended: SseLine[] = [];
	const lines = new SseLines(() => maxBytes, {
		pass: (bytes) => passed.push(Buffer.from(bytes)),
		cut: (line) => (cut.push(line), !stopAtCut),
		ended: (line) => ended.push(line),
	});
	return {
		push: (text: string) => lines.push(Buffer.from(text)),
		passed: () => Buffer.concat(passed).toString(),
		cut,
		ended,
	};
}

describe('SseLines', () => {
	it('passes a stream on byte for byte, and tells each line with its field, across chunks and CRLF', () => {
		const stream =
			'id: 7\r\nevent: message\r\ndata: {"jsonrpc":"2.0","id":1,"result":{}}\r\n\r\n: keep\n';
		const { push, passed, ended } = scanner(1024);
		for (let at = 0; at < stream.length; at += 5) push(stream.slice(at, at + 5));
		expect(passed()).toBe(stream);
		expect(ended.map(({ field, value, cut }) => ({ field, value, cut }))).toEqual([
			{ field: 'id', value: '7\r', cut: false },
			{ field: 'event', value: 'message\r', cut: false },
			{ field: 'data', value: '{"jsonrpc":"2.0","id":1,"result":{}}\r', cut: false },
			{ field: '', value: '', cut: false },
			{ field: '', value: 'keep', cut: false },
		]);
	});

	it('passes on nothing of a line past the limit but an end to its event, counts it, keeps its ends, and reads on', () => {
		const { push, passed, cut, ended } = scanner(1000);
		push('event: message\ndata: {"result":{"text":"');
		for (let chunk = 0; chunk < 50; chunk++) push('x'.repeat(64 * 1024));
		push('"},"jsonrpc":"2.0","id":7}\n\ndata: {"next":true}\n\n');
		const head = 'event: message\ndata: {"result":{"text":"';
		expect(passed()).toBe(`${head}\n\n\ndata: {"next":true}\n\n`);
		expect(cut).toHaveLength(1);
		const big = ended.find((line) => line.cut)!;
		expect(big.bytes).toBe(
			50 * 64 * 1024 + 'data: {"result":{"text":"'.length + '"},"jsonrpc":"2.0","id":7}'.length,
		);
		expect(big.value.startsWith('{"result":{"text":"xxx')).toBe(true);
		expect(big.tail.endsWith('xxx"},"jsonrpc":"2.0","id":7}')).toBe(true);
		expect(ended.at(-2)).toMatchObject({ field: 'data', value: '{"next":true}', cut: false });
	});

	it('stops where the line passed the limit when told to', () => {
		const { push, passed } = scanner(100, true);
		expect(push(`data: ${'x'.repeat(80)}`)).toBe(true);
		expect(push(`${'x'.repeat(80)}\ndata: more\n\n`)).toBe(false);
		expect(passed()).toBe(`data: ${'x'.repeat(80)}\n\n`);
	});
});
