import { MAX_JSON_DEPTH, nestsDeeperThan } from '../json/depth';
import type { ReadResourceResult } from '../mcp/connection';
import {
	binaryPlaceholders,
	extensionOf,
	type BinaryPlaceholder,
	type BinaryStore,
} from './resultMessage';

/** One content of a read resource as the item holds it: text in the JSON, a blob as binary data. */
export interface ResourceContent {
	uri: string;
	mimeType?: string;
	text?: string;
	/** The text parsed, when the content is JSON (application/json or a +json type). */
	json?: unknown;
	/** The item's binary property holding a blob, and its size. */
	binaryProperty?: string;
	bytes?: number;
}

const JSON_TYPE = /^application\/([^;]*\+)?json\b/i;

/** `resources/read` contents for an item: texts kept (JSON ones also parsed), blobs stored as binary data. */
export async function readContents(
	result: ReadResourceResult,
	storeBinary: BinaryStore,
): Promise<ResourceContent[]> {
	const contents: ResourceContent[] = [];
	for (const content of result.contents) {
		const { uri, mimeType } = content;
		const typed = { uri, ...(mimeType !== undefined && { mimeType }) };
		if ('text' in content && typeof content.text === 'string') {
			contents.push({ ...typed, text: content.text, ...parsedJson(content.text, mimeType) });
		} else if ('blob' in content && typeof content.blob === 'string') {
			const bytes = Buffer.from(content.blob, 'base64');
			const type = mimeType ?? 'application/octet-stream';
			const binaryProperty = await storeBinary(bytes, type, fileNameOf(uri, type));
			contents.push({ ...typed, binaryProperty, bytes: bytes.length });
		}
	}
	return contents;
}

/** The read result as the trace keeps it: each blob's base64 replaced by the binary property holding it. */
export function readResultForTrace(
	result: ReadResourceResult,
	contents: readonly ResourceContent[],
): ReadResourceResult {
	const placeholder = binaryPlaceholders(
		contents.filter((content) => content.bytes !== undefined).map((c) => c.binaryProperty),
	);
	return {
		...result,
		contents: result.contents.map((content) => {
			if (!('blob' in content) || typeof content.blob !== 'string') return content;
			const { blob, ...rest } = content;
			return { ...rest, blob: placeholder(blob) as BinaryPlaceholder };
		}),
	} as ReadResourceResult;
}

function parsedJson(text: string, mimeType: string | undefined): { json?: unknown } {
	if (!mimeType || !JSON_TYPE.test(mimeType)) return {};
	try {
		const json: unknown = JSON.parse(text);
		// Too deep to be stored or shown as an item's JSON: the text stays.
		return nestsDeeperThan(json, MAX_JSON_DEPTH) ? {} : { json };
	} catch {
		return {};
	}
}

/** The resource's own file name where its URI ends in one (`report.pdf`), else `resource` with the type's extension. */
function fileNameOf(uri: string, mimeType: string): string {
	const last = decodedOrAsIs(uri.split(/[?#]/)[0].split('/').pop() ?? '');
	return /\.\w+$/.test(last) ? last : `resource${extensionOf(mimeType)}`;
}

/** A URI's part decoded; as written when it is not valid percent-encoding (`growth-100%.pdf`). */
function decodedOrAsIs(part: string): string {
	try {
		return decodeURIComponent(part);
	} catch {
		return part;
	}
}
