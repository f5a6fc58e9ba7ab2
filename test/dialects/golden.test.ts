/**
 * Golden fixtures, one folder per dialect under test/fixtures/dialects/<dialect id>/:
 *   <case>.request.json   {description, source, conversation:{messages,tools}, settings, expected:{body, notStrict?}}
 *                         the neutral conversation in, the vendor's request body out
 *   <case>.response.json  {description, source, toolNames, body, expected}  a vendor body in, the ModelTurn out
 *   <case>.stream.json    {description, source, toolNames, chunks, expected, sameAs?}  streamed events in, the
 *                         ModelTurn out; with `sameAs` it must equal that response fixture's turn too
 * `source` says where the vendor JSON came from (a published capture, or hand-written from which reference).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Conversation } from '../../lib/conversation/types';
import { DIALECTS as dialects } from '../../lib/dialects/registry';
import type { Dialect, ModelSettings } from '../../lib/dialects/types';

const root = join(__dirname, '..', 'fixtures', 'dialects');
const read = (dir: string, file: string) => JSON.parse(readFileSync(join(root, dir, file), 'utf8'));
const settingsForParsing: ModelSettings = {
	model: 'fixture-model',
	toolChoice: 'auto',
	stream: false,
};

/** The name map a request offering these tools would have made. */
function namesFor(dialect: Dialect, toolNames: string[]) {
	const conversation: Pick<Conversation, 'messages' | 'tools'> = {
		messages: [{ role: 'user', content: 'fixture' }],
		tools: toolNames.map((name) => ({ name, inputSchema: { type: 'object', properties: {} } })),
	};
	return dialect.buildRequest(conversation, settingsForParsing).names;
}

/** The assembled body, and the answer's text as the pieces push gave it, joined. */
function streamed(dialect: Dialect, chunks: unknown[]) {
	const assembler = dialect.createStreamAssembler();
	const pieces = chunks.map((chunk) => assembler.push(chunk));
	expect(assembler.finished()).toBe(true);
	return { body: assembler.result(), text: pieces.join('') };
}

const folders = readdirSync(root);

it('has fixtures for every dialect and a dialect for every fixture folder', () => {
	expect(folders.sort()).toEqual(Object.keys(dialects).sort());
});

describe.each(folders)('%s', (folder) => {
	const dialect = dialects[folder as keyof typeof dialects];
	const files = readdirSync(join(root, folder)).sort();
	const cases = (kind: string) => files.filter((file) => file.endsWith(`.${kind}.json`));

	it('has request, response and stream fixtures', () => {
		expect(cases('request').length).toBeGreaterThan(0);
		expect(cases('response').length).toBeGreaterThan(0);
		expect(cases('stream').length).toBeGreaterThan(0);
	});

	it.each(cases('request'))('%s', (file) => {
		const fixture = read(folder, file);
		const { body, notStrict } = dialect.buildRequest(fixture.conversation, fixture.settings);
		expect(body).toEqual(fixture.expected.body);
		expect(notStrict).toEqual(fixture.expected.notStrict ?? []);
	});

	it.each(cases('response'))('%s', (file) => {
		const fixture = read(folder, file);
		expect(dialect.parseResponse(fixture.body, namesFor(dialect, fixture.toolNames))).toEqual(
			fixture.expected,
		);
	});

	it.each(cases('stream'))('%s', (file) => {
		const fixture = read(folder, file);
		const { body, text } = streamed(dialect, fixture.chunks);
		const turn = dialect.parseResponse(body, namesFor(dialect, fixture.toolNames));
		expect(turn).toEqual(fixture.expected);
		// What streams to a person as it is written is the turn's text, byte for byte.
		expect(text).toBe(turn.message.content ?? '');
		if (fixture.sameAs) expect(turn).toEqual(read(folder, fixture.sameAs).expected);
	});
});
