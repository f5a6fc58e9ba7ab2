import { createAnswerStream, type TextSink } from '../../lib/decision/answerStream';

const KEY = 'sk-live-4f9a8b7c6d5e';

/** A sink that records its chunks, each call resolving a little later as n8n's hook does. */
function recordingSink(failOn?: 'item') {
	const chunks: Array<[string, string?]> = [];
	const later = async () => await new Promise((resolve) => setImmediate(resolve));
	const sink: TextSink = {
		begin: async () => {
			await later();
			chunks.push(['begin']);
		},
		item: async (text) => {
			await later();
			if (failOn === 'item') throw new Error('the caller went away');
			chunks.push(['item', text]);
		},
		end: async () => {
			await later();
			chunks.push(['end']);
		},
		error: async (message) => {
			await later();
			chunks.push(['error', message]);
		},
	};
	return { sink, chunks };
}

const call = (name: string) => ({ id: name, name, arguments: {}, rawArguments: '{}' });

describe('createAnswerStream', () => {
	it('sends the pieces in order between one begin and one end', async () => {
		const { sink, chunks } = recordingSink();
		const stream = createAnswerStream(sink, { secrets: [], announceToolCalls: false });
		for (const piece of ['The ', 'answer ', 'is 42.']) stream.text(piece);
		await stream.finish({ content: 'The answer is 42.', toolCalls: [] });
		expect(chunks).toEqual([
			['begin'],
			['item', 'The '],
			['item', 'answer '],
			['item', 'is 42.'],
			['end'],
		]);
	});

	it('sends a whole answer as one piece when nothing streamed (Stream off, a replay)', async () => {
		const { sink, chunks } = recordingSink();
		const stream = createAnswerStream(sink, { secrets: [], announceToolCalls: false });
		await stream.finish({ content: 'All at once.', toolCalls: [] });
		expect(chunks).toEqual([['begin'], ['item', 'All at once.'], ['end']]);
	});

	it('sends a second turn (a repair) as a message of its own, whole although the first streamed', async () => {
		const { sink, chunks } = recordingSink();
		const stream = createAnswerStream(sink, { secrets: [], announceToolCalls: false });
		stream.text('Not JSON');
		await stream.finish({ content: 'Not JSON', toolCalls: [] });
		// The repaired answer came by the answer tool: no text of it streamed.
		await stream.finish({ content: '{"city":"Rome"}', toolCalls: [] });
		expect(chunks).toEqual([
			['begin'],
			['item', 'Not JSON'],
			['end'],
			['begin'],
			['item', '{"city":"Rome"}'],
			['end'],
		]);
	});

	it('sends what the final text adds beyond what streamed', async () => {
		const { sink, chunks } = recordingSink();
		const stream = createAnswerStream(sink, { secrets: [], announceToolCalls: false });
		stream.text('Part');
		await stream.finish({ content: 'Part and rest', toolCalls: [] });
		expect(
			chunks
				.filter(([type]) => type === 'item')
				.map(([, text]) => text)
				.join(''),
		).toBe('Part and rest');
	});

	it('sends nothing for a turn with calls and no text, unless calls are announced', async () => {
		const quiet = recordingSink();
		const silent = createAnswerStream(quiet.sink, { secrets: [], announceToolCalls: false });
		await silent.finish({ content: null, toolCalls: [call('get_weather')] });
		expect(quiet.chunks).toEqual([]);

		const told = recordingSink();
		const announcing = createAnswerStream(told.sink, { secrets: [], announceToolCalls: true });
		announcing.text('Let me look that up.');
		await announcing.finish({
			content: 'Let me look that up.',
			toolCalls: [call('get_weather'), call('get_time')],
		});
		expect(told.chunks).toEqual([
			['begin'],
			['item', 'Let me look that up.'],
			['item', '\n\nCalling get_weather…\nCalling get_time…\n\n'],
			['end'],
		]);
	});

	it('never sends a secret split across pieces, and hides it in an error', async () => {
		const { sink, chunks } = recordingSink();
		const stream = createAnswerStream(sink, { secrets: [KEY], announceToolCalls: false });
		stream.text('Your key is sk-li');
		stream.text('ve-4f9a8b7c6d5e, keep it.');
		await stream.finish({ content: `Your key is ${KEY}, keep it.`, toolCalls: [] });
		const sent = chunks.map(([, text]) => text ?? '').join('');
		expect(sent).toBe('Your key is [redacted], keep it.');
		expect(chunks.some(([, text]) => text?.includes('sk-li'))).toBe(false);

		const failing = recordingSink();
		const failed = createAnswerStream(failing.sink, { secrets: [KEY], announceToolCalls: false });
		await failed.fail(`401: the key ${KEY} is not valid`);
		expect(failing.chunks).toEqual([['error', '401: the key [redacted] is not valid']]);
	});

	it('ends what it began when the turn fails midway, after the error', async () => {
		const { sink, chunks } = recordingSink();
		const stream = createAnswerStream(sink, { secrets: [], announceToolCalls: false });
		stream.text('Half an ans');
		await stream.fail('The stream broke off after 3 chunks');
		expect(chunks).toEqual([
			['begin'],
			['item', 'Half an ans'],
			['error', 'The stream broke off after 3 chunks'],
			['end'],
		]);
	});

	it('finishes the turn when the caller went away', async () => {
		const { sink, chunks } = recordingSink('item');
		const stream = createAnswerStream(sink, { secrets: [], announceToolCalls: false });
		stream.text('Nobody reads this');
		await expect(
			stream.finish({ content: 'Nobody reads this', toolCalls: [] }),
		).resolves.toBeUndefined();
		expect(chunks).toEqual([['begin']]);
	});
});
