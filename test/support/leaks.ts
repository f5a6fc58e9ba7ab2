/**
 * Where a secret shows in text, in any form a careless component could pass it on: as it is, in
 * part (any 8 characters in a row), as JSON writes it, as its UTF-8 bytes read one by one (binary
 * data), base64 or base64url at each byte alignment, hex, URL-encoded or fully \u-escaped. Built
 * from Node's own encoders, independently of the package's redaction.
 */
export function leaksOf(text: string, secret: string): string[] {
	const bytes = Buffer.from(secret);
	const forms: Array<[name: string, form: string, caseless?: boolean]> = [];
	const parts = (name: string, form: string) => {
		const width = Math.min(8, form.length);
		for (let start = 0; start + width <= form.length; start++)
			forms.push([`${name} ${start}`, form.slice(start, start + width)]);
	};
	parts('part', secret);
	const asJson = JSON.stringify(secret).slice(1, -1);
	if (asJson !== secret) parts('JSON-escaped part', asJson);
	const asBytes = bytes.toString('latin1');
	if (asBytes !== secret) forms.push(['UTF-8 bytes', asBytes]);
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
	forms.push(['hex', bytes.toString('hex'), true]);
	forms.push(['URL-encoded', encodeURIComponent(secret), true]);
	const units = Array.from({ length: secret.length }, (_, index) =>
		secret.charCodeAt(index).toString(16).padStart(4, '0'),
	);
	forms.push(['\\u-escaped', units.map((unit) => `\\u${unit}`).join(''), true]);
	const lower = text.toLowerCase();
	return forms
		.filter(([, form, caseless]) =>
			caseless ? lower.includes(form.toLowerCase()) : text.includes(form),
		)
		.map(([name]) => name);
}
