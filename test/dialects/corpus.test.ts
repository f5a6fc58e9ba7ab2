/**
 * A corpus of real responses, whole and streamed, for every dialect (test/fixtures/corpus/<dialect>/):
 * recordings other projects published (the Vercel AI SDK's provider fixtures, recorded from the
 * vendors' APIs and from servers that speak them: DeepSeek, Groq, Mistral, xAI, Alibaba, Azure)
 * and the examples of the vendors' own API references. Each file names its source and licence;
 * `expected` is what a reader of the vendor's reply sees in it: the finish, the text, the calls.
 * Every dialect's parser reads every file of its folder; a streamed one must give, piece by piece,
 * exactly the text of the turn it assembles into.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { DIALECTS } from '../../lib/dialects/registry';
import type { DialectId } from '../../lib/dialects/types';

const root = join(__dirname, '..', 'fixtures', 'corpus');

interface CorpusFile {
	source: string;
	licence: string;
	body?: unknown;
	events?: unknown[];
	expected: {
		finish?: string;
		text?: string | null;
		calls?: Array<{ name: string; arguments: unknown }>;
		unanswered?: string[];
		error?: string;
	};
}

const folders = readdirSync(root).sort();

it('has real responses, whole and streamed, for every dialect', () => {
	expect(folders).toEqual(Object.keys(DIALECTS).sort());
	for (const folder of folders) {
		const files = readdirSync(join(root, folder));
		expect(files.some((file) => file.endsWith('.response.json'))).toBe(true);
		expect(files.some((file) => file.endsWith('.stream.json'))).toBe(true);
	}
});

describe.each(folders)('%s', (folder) => {
	const dialect = DIALECTS[folder as DialectId];
	const names = dialect.buildRequest(
		{ messages: [{ role: 'user', content: 'corpus' }], tools: [] },
		{ model: 'corpus', toolChoice: 'auto', stream: false },
	).names;

	it.each(readdirSync(join(root, folder)).sort())('%s', (file) => {
		const fixture = JSON.parse(readFileSync(join(root, folder, file), 'utf8')) as CorpusFile;
		expect(fixture.source).toMatch(/\S/);
		expect(fixture.licence).toMatch(/^(MIT|Apache-2\.0)\b/);
		let body = fixture.body;
		let streamedText: string | undefined;
		if (fixture.events) {
			const assembler = dialect.createStreamAssembler();
			streamedText = fixture.events.map((event) => assembler.push(event)).join('');
			expect(assembler.finished()).toBe(true);
			body = assembler.result();
		}
		const { expected } = fixture;
		if (expected.error) {
			expect(() => dialect.parseResponse(body, names)).toThrow(expected.error);
			return;
		}
		const turn = dialect.parseResponse(body, names);
		expect({
			finish: turn.finish,
			text: turn.message.content,
			calls: turn.toolCalls.map((call) => ({
				name: call.name,
				arguments: call.arguments ?? call.rawArguments,
			})),
			...(turn.unanswered && { unanswered: turn.unanswered }),
		}).toEqual({
			finish: expected.finish,
			text: expected.text,
			calls: expected.calls,
			...(expected.unanswered && { unanswered: expected.unanswered }),
		});
		// No call leaves without a name, and the ids its results will name are unique.
		for (const call of turn.toolCalls) expect(call.name).not.toBe('');
		expect(new Set(turn.toolCalls.map((call) => call.id)).size).toBe(turn.toolCalls.length);
		// What streams to a person is the turn's text, byte for byte: reasoning never among it.
		if (streamedText !== undefined) expect(streamedText).toBe(turn.message.content ?? '');
	});
});
