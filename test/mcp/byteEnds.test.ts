import { ByteEnds } from '../../lib/mcp/byteEnds';

/** A run of `length` bytes that names where each byte sits, so its ends are recognisable. */
const run = (length: number) =>
	Buffer.from(
		Array.from({ length }, (_, index) => String.fromCharCode(97 + (index % 26))).join(''),
	);

function added(bytes: Buffer, pieceSize: number): ByteEnds {
	const ends = new ByteEnds();
	for (let at = 0; at < bytes.length; at += pieceSize) ends.add(bytes.subarray(at, at + pieceSize));
	return ends;
}

describe('ByteEnds', () => {
	it('keeps the size and the first and last 256 bytes of a run added in pieces of any size', () => {
		const bytes = run(1000);
		for (const pieceSize of [1, 7, 256, 300, 1000]) {
			expect(added(bytes, pieceSize).text()).toEqual({
				bytes: 1000,
				head: bytes.subarray(0, 256).toString(),
				tail: bytes.subarray(744).toString(),
			});
		}
	});

	it('keeps a short run whole at both ends', () => {
		expect(added(run(40), 3).text()).toEqual({
			bytes: 40,
			head: run(40).toString(),
			tail: run(40).toString(),
		});
	});

	it('gives the run from a byte on, as far as its ends keep it', () => {
		const short = added(run(40), 40).from(10);
		expect([short.bytes, short.head.toString(), short.tail.toString()]).toEqual([
			30,
			run(40).subarray(10).toString(),
			run(40).subarray(10).toString(),
		]);
		const long = added(run(1000), 64).from(10);
		expect([long.bytes, long.head.toString(), long.tail.toString()]).toEqual([
			990,
			run(1000).subarray(10, 256).toString(),
			run(1000).subarray(744).toString(),
		]);
	});

	it('appends a run known by its ends as if its bytes were added', () => {
		const whole = run(900);
		const first = added(whole.subarray(0, 100), 100);
		first.append(added(whole.subarray(100), 50));
		expect(first.text()).toEqual(added(whole, 900).text());
		const tiny = added(whole.subarray(0, 5), 5);
		tiny.append(added(whole.subarray(5, 12), 7));
		expect(tiny.text()).toEqual(added(whole.subarray(0, 12), 12).text());
	});
});
