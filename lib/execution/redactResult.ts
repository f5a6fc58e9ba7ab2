import type { Redactor } from '../json/redact';
import type { CallToolResult, GetPromptResult, ReadResourceResult } from '../mcp/connection';

type ContentPart = CallToolResult['content'][number];

/** Binary data that is text (a CSV file, JSON, an SVG image) is redacted in place; other data cannot be. */
const TEXT_LIKE =
	/^(text\/|application\/(json|xml|x-ndjson|x?yaml|javascript|csv|x-www-form-urlencoded|sql|graphql|toml)\b|[^;]*\+(json|xml)\b)/i;

/**
 * A tool result with the credential secrets taken out before anything reads it: from its texts
 * (also a secret split across adjacent text parts), its structured content, metadata and links,
 * and its binary data. Text-like data is redacted in place; other data that holds a secret in any
 * form is withheld, and the result says so in its place.
 */
export function redactResult(result: CallToolResult, redactor: Redactor): CallToolResult {
	const { content = [], ...rest } = result;
	const redacted: ContentPart[] = [];
	for (let index = 0; index < content.length;) {
		// A run of text parts is one text to the reader: a secret may be cut across two of them.
		let end = index;
		while (end < content.length && content[end].type === 'text') end++;
		if (end > index) {
			const run = content.slice(index, end) as Array<Extract<ContentPart, { type: 'text' }>>;
			const texts = redactor.adjacent(run.map((part) => part.text));
			run.forEach(({ text: _text, ...described }, at) =>
				redacted.push({ ...redactor.values(described), text: texts[at] }),
			);
			index = end;
			continue;
		}
		redacted.push(redactPart(content[index], redactor));
		index++;
	}
	return { ...redactor.values(rest), content: redacted } as CallToolResult;
}

function redactPart(part: ContentPart, redactor: Redactor): ContentPart {
	if (part.type === 'image' || part.type === 'audio') {
		const { data, ...described } = part;
		const kept = redactBytes(data, part.mimeType, redactor);
		if (kept === undefined) return redactor.values(withheld(part.type, part.mimeType));
		return { ...redactor.values(described), data: kept };
	}
	if (part.type === 'resource' && 'blob' in part.resource) {
		const { blob, ...resource } = part.resource;
		const mimeType = resource.mimeType ?? 'application/octet-stream';
		const kept = redactBytes(blob, mimeType, redactor);
		if (kept === undefined) return redactor.values(withheld('blob', mimeType, resource.uri));
		const described = redactor.values({ ...part, resource });
		return { ...described, resource: { ...described.resource, blob: kept } };
	}
	return redactor.values(part);
}

/** The base64 data with the secrets taken out, or undefined when it holds one that cannot be. */
function redactBytes(base64: string, mimeType: string, redactor: Redactor): string | undefined {
	const bytes = Buffer.from(base64, 'base64');
	if (TEXT_LIKE.test(mimeType)) {
		const text = bytes.toString('utf8');
		const hidden = redactor.values(text);
		const redacted = hidden === text ? bytes : Buffer.from(hidden, 'utf8');
		// Text in another encoding (UTF-16, Latin-1) still holds the secret's bytes: withheld.
		if (redactor.foundIn(redacted)) return undefined;
		return hidden === text ? base64 : redacted.toString('base64');
	}
	return redactor.foundIn(bytes) ? undefined : base64;
}

function withheld(kind: string, mimeType: string, uri?: string): ContentPart {
	return {
		type: 'text',
		text: `[${kind} ${mimeType}${uri ? ` ${uri}` : ''} withheld: it holds a secret of the credential in use]`,
	};
}

/**
 * A `resources/read` result with the credential secrets taken out, as redactResult does for a tool
 * result: texts redacted, a blob redacted in place or withheld (a text says so in its place).
 */
export function redactReadResult(
	result: ReadResourceResult,
	redactor: Redactor,
): ReadResourceResult {
	const contents = result.contents.map((content) => {
		if (!('blob' in content) || typeof content.blob !== 'string') return redactor.values(content);
		const { blob, ...described } = content;
		const mimeType = content.mimeType ?? 'application/octet-stream';
		const kept = redactBytes(blob, mimeType, redactor);
		if (kept === undefined) {
			const { text } = withheld('blob', mimeType, content.uri) as { text: string };
			return { ...redactor.values(described), text };
		}
		return { ...redactor.values(described), blob: kept };
	});
	return { ...redactor.values(result), contents } as ReadResourceResult;
}

/** A `prompts/get` result with the credential secrets taken out of each message, as redactResult does. */
export function redactPromptResult(result: GetPromptResult, redactor: Redactor): GetPromptResult {
	const messages = result.messages.map((message) => ({
		...message,
		content: redactPart(message.content as ContentPart, redactor),
	}));
	return { ...redactor.values(result), messages } as GetPromptResult;
}
