import { createRedactor } from '../../lib/json/redact';
import { createStreamRedactor } from '../../lib/json/streamRedaction';

const KEY = 'sk-live-4f9a8b7c6d5e';
const OTHER = 'ghp_Zq81xYw02';

/** Every way to cut the text into two or three pieces. */
function cuts(text: string): string[][] {
	const ways: string[][] = [];
	for (let a = 0; a <= text.length; a++) {
		ways.push([text.slice(0, a), text.slice(a)]);
		for (let b = a; b <= text.length; b += 3)
			ways.push([text.slice(0, a), text.slice(a, b), text.slice(b)]);
	}
	return ways;
}

function streamed(secrets: string[], pieces: string[]) {
	const redactor = createStreamRedactor(secrets);
	const sent = [...pieces.map((piece) => redactor.push(piece)), redactor.end()];
	return { sent, joined: sent.join('') };
}

describe('createStreamRedactor', () => {
	const wholeRedaction = (text: string, secrets: string[]) =>
		createRedactor({ secrets }).values(text);

	it.each([
		['the key as it is', `Your key is ${KEY}, keep it safe.`],
		['the key at the very end', `key: ${KEY}`],
		['the key base64-encoded', `encoded: ${Buffer.from(`x${KEY}`).toString('base64')} done`],
		['the key as hex', `hex ${Buffer.from(KEY).toString('hex')}!`],
		['the key URL-encoded', `url ${encodeURIComponent(KEY).replace(/-/g, '%2D')}.`],
		['two secrets side by side', `${OTHER}${KEY} and ${OTHER}`],
		['no secret at all', 'The weather in Oslo is 3 °C.'],
	])('never sends any piece of %s, however the text is cut', (_name, text) => {
		for (const pieces of cuts(text)) {
			const { sent, joined } = streamed([KEY, OTHER], pieces);
			for (const piece of sent) {
				expect(piece).not.toContain(KEY.slice(0, 8));
				expect(piece).not.toContain(OTHER.slice(0, 8));
			}
			// What went out, joined, is what redacting the whole text gives, byte for byte.
			expect(joined).toBe(wholeRedaction(text, [KEY, OTHER]));
		}
	});

	it('holds back only a piece that could begin a secret', () => {
		const redactor = createStreamRedactor([KEY]);
		expect(redactor.push('Hello there, ')).toBe('Hello there, ');
		// "sk-l" may begin the key: it waits for the next piece.
		expect(redactor.push('your token sk-l')).toBe('your token ');
		expect(redactor.push('ater.')).toBe('sk-later.');
		expect(redactor.end()).toBe('');
	});

	it('hides a secret whose end repeats its start, split where the repeat begins', () => {
		const secret = 'abcdefab';
		const { sent, joined } = streamed([secret], ['xx abcdef', 'abcd yy']);
		expect(sent.join('|')).not.toContain('abcdef|');
		expect(joined).toBe(wholeRedaction('xx abcdefabcd yy', [secret]));
	});

	it('sends every piece at once when there is no secret to look for', () => {
		const redactor = createStreamRedactor(['short']);
		expect(redactor.push('sk-')).toBe('sk-');
		expect(redactor.end()).toBe('');
	});
});
