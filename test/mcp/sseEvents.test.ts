import { SseEvents, type SseEvent } from '../../lib/mcp/sseEvents';

/** An SseEvents over `maxBytes`, stopping at a cut event when `stopAtCut`; what it passed on and told. */
function scanner(maxBytes: number, stopAtCut = false) {
	const passed: Buffer[] = [];
	const cut: SseEvent[] = [];
	const ended: SseEvent[] = [];
	const events = new SseEvents(() => maxBytes, {
		pass: (bytes) => passed.push(Buffer.from(bytes)),
		cut: (event) => (cut.push(event), !stopAtCut),
		ended: (event) => ended.push(event),
	});
	return {
		push: (text: string | Buffer) => events.push(Buffer.from(text)),
		/** Pushes `stream` in pieces of `size` bytes. */
		pushInPieces(stream: string, size: number) {
			const bytes = Buffer.from(stream);
			for (let at = 0; at < bytes.length; at += size) events.push(bytes.subarray(at, at + size));
		},
		passed: () => Buffer.concat(passed).toString(),
		cut,
		ended,
	};
}

const brief = ({ type, id, bytes, head, tail, cut }: SseEvent) => ({
	type,
	id,
	bytes,
	head,
	tail,
	cut,
});

const answer = '{"jsonrpc":"2.0","id":1,"result":{}}';

describe('SseEvents', () => {
	it.each([
		['LF', '\n'],
		['CRLF', '\r\n'],
		['CR', '\r'],
	])(
		'passes a stream on byte for byte and tells each event, its lines ended by %s, in pieces of any size',
		(_, end) => {
			const stream = [
				'id: 7',
				'event: message',
				`data: ${answer}`,
				'',
				': keep alive',
				'',
				'id: 8',
				'data: ',
				'',
				// A CR that ends what came waits for what follows it, as in the SDK's parser.
				': bye',
				'',
			].join(end);
			for (const size of [1, 2, 5, 1000]) {
				const { pushInPieces, passed, ended } = scanner(1024);
				pushInPieces(stream, size);
				expect(passed()).toBe(stream);
				expect(ended.map(brief)).toEqual([
					{
						type: 'message',
						id: '7',
						bytes: answer.length,
						head: answer,
						tail: answer,
						cut: false,
					},
					// A priming event: an id and empty data.
					{ type: '', id: '8', bytes: 0, head: '', tail: '', cut: false },
				]);
			}
		},
	);

	it('joins the data lines of one event, as the SDK does, and keeps its type and id to that event', () => {
		const { push, ended } = scanner(1024);
		push('event: debug\nid: a\ndata: {"jsonrpc":"2.0",\ndata:"id":3,\ndata: "result":{}}\n\n');
		push('data: {"next":true}\n\n');
		const joined = '{"jsonrpc":"2.0",\n"id":3,\n"result":{}}';
		expect(ended.map(brief)).toEqual([
			{ type: 'debug', id: 'a', bytes: joined.length, head: joined, tail: joined, cut: false },
			{ type: '', id: '', bytes: 13, head: '{"next":true}', tail: '{"next":true}', cut: false },
		]);
	});

	it('keeps the last bytes of a value a little longer than the ends it keeps, without its field', () => {
		const { push, ended } = scanner(1024);
		const value = `{"result":"${'z'.repeat(232)}","id":12}`;
		push(`data: ${value}\n\n`);
		expect(ended[0].tail).toBe(value);
		expect(ended[0].head).toBe(value.slice(0, 250));
	});

	it('reads the first field past a byte-order mark, and a stream of it alone as a blank line', () => {
		const { push, ended } = scanner(1024);
		push(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('id: 1\ndata: x\n\n')]));
		expect(ended.map(({ id, head }) => ({ id, head }))).toEqual([{ id: '1', head: 'x' }]);
	});

	it('passes on nothing of an event past the limit but its end, counts it, keeps its ends, and reads on', () => {
		const { push, passed, cut, ended } = scanner(1000);
		push('event: message\ndata: {"result":{"text":"');
		for (let chunk = 0; chunk < 50; chunk++) push('x'.repeat(64 * 1024));
		push('"},"jsonrpc":"2.0","id":7}\n\ndata: {"next":true}\n\n');
		// The rest of the cut event, its blank line too, is not passed on.
		expect(passed()).toBe('event: message\ndata: {"result":{"text":"\n\ndata: {"next":true}\n\n');
		expect(cut).toHaveLength(1);
		const big = ended[0];
		expect(big.cut).toBe(true);
		expect(big.bytes).toBe(50 * 64 * 1024 + '{"result":{"text":""},"jsonrpc":"2.0","id":7}'.length);
		expect(big.head.startsWith('{"result":{"text":"xxx')).toBe(true);
		expect(big.tail.endsWith('xxx"},"jsonrpc":"2.0","id":7}')).toBe(true);
		expect(brief(ended[1])).toMatchObject({ head: '{"next":true}', cut: false });
	});

	it('cuts an event whose data passes the limit over many short lines, as one long line', () => {
		const { push, passed, cut, ended } = scanner(1000);
		const first = '{"jsonrpc":"2.0","id":5,"result":"';
		push(`data: ${first}\n`);
		for (let line = 0; line < 100; line++) push(`data: ${'y'.repeat(50)}\n`);
		push('data: "}\n\n');
		expect(cut).toHaveLength(1);
		expect(cut[0].head.startsWith('{"jsonrpc":"2.0","id":5')).toBe(true);
		expect(passed().length).toBeLessThan(1100);
		expect(passed().endsWith('\n\n')).toBe(true);
		expect(ended[0]).toMatchObject({ cut: true, bytes: first.length + 100 * 51 + 3 });
	});

	it('stops where the event passed the limit when told to', () => {
		const { push, passed } = scanner(100, true);
		expect(push(`data: ${'x'.repeat(80)}`)).toBe(true);
		expect(push(`${'x'.repeat(80)}\ndata: more\n\n`)).toBe(false);
		expect(passed()).toBe(`data: ${'x'.repeat(80)}\n\n`);
	});
});
