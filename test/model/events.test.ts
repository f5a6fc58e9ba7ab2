import { streamedEvents } from '../../lib/model/events';

async function eventsOf(pieces: string[], framing: 'sse' | 'ndjson'): Promise<string[]> {
	const events: string[] = [];
	for await (const event of streamedEvents(pieces, framing)) events.push(event);
	return events;
}

describe('streamedEvents', () => {
	it('reads SSE data lines up to a blank line, whatever the line ends and however the bytes are cut', async () => {
		const text =
			'event: message_start\r\ndata: {"a":1}\r\n\r\n: a comment\ndata: first\r\ndata: second\r\n\r\nid: 7\rdata: [DONE]\r\r';
		const expected = ['{"a":1}', 'first\nsecond'];
		expect(await eventsOf([text], 'sse')).toEqual(expected);
		// Every cut, including between the \r and the \n of one line end.
		for (let cut = 1; cut < text.length; cut++)
			expect(await eventsOf([text.slice(0, cut), text.slice(cut)], 'sse')).toEqual(expected);
	});

	it('reads one JSON object per line of NDJSON, with or without a last line end', async () => {
		expect(await eventsOf(['{"a":1}\n{"b"', ':2}\n\n{"c":3}'], 'ndjson')).toEqual([
			'{"a":1}',
			'{"b":2}',
			'{"c":3}',
		]);
	});

	it('decodes UTF-8 split inside a character', async () => {
		const bytes = Buffer.from('data: "héllo ✓"\n\n');
		const cut = bytes.indexOf(0xe2) + 1;
		const events: string[] = [];
		for await (const event of streamedEvents([bytes.subarray(0, cut), bytes.subarray(cut)], 'sse'))
			events.push(event);
		expect(events).toEqual(['"héllo ✓"']);
	});
});
