/**
 * Where a secret shows in text, in any form a careless component could pass it on: as it is, in
 * part (any 8 characters in a row), base64 or base64url at each byte alignment, hex, URL-encoded
 * or JSON-escaped. Built from Node's own encoders, independently of the package's redaction.
 */
export function leaksOf(text: string, secret: string): string[] {
	const bytes = Buffer.from(secret);
	const forms: Array<[string, string]> = [];
	for (let start = 0; start + 8 <= secret.length; start++)
		forms.push([`part ${start}`, secret.slice(start, start + 8)]);
	for (const offset of [0, 1, 2]) {
		const encoded = Buffer.concat([Buffer.alloc(offset), bytes]).toString('base64');
		// The characters that depend on the secret alone: what any base64 holding it contains.
		const inner = encoded.slice(
			Math.ceil((4 * offset) / 3),
			Math.floor((4 * (offset + bytes.length)) / 3),
		);
		forms.push([`base64 at ${offset}`, inner]);
		forms.push([`base64url at ${offset}`, inner.replace(/\+/g, '-').replace(/\//g, '_')]);
	}
	forms.push(['hex', bytes.toString('hex')]);
	forms.push(['url-encoded', encodeURIComponent(secret)]);
	forms.push([
		'JSON-escaped',
		[...secret].map((char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`).join(''),
	]);
	const haystack = text.toLowerCase();
	return forms
		.filter(([name, form]) =>
			name === 'hex' || name === 'JSON-escaped'
				? haystack.includes(form.toLowerCase())
				: text.includes(form),
		)
		.map(([name]) => name);
}
