import type { CallToolResult } from '../mcp/connection';
import type { BinaryReference, ToolMessage } from '../conversation/types';

/** Stores bytes as binary data of the item and returns the binary property name it got. */
export type BinaryStore = (data: Buffer, mimeType: string, fileName: string) => Promise<string>;

type ContentPart = CallToolResult['content'][number];

/**
 * An MCP result as a tool message: text stays text; images, audio and blobs become binary data
 * of the item with a line in the text saying where they are (tool messages carry text only).
 */
export async function toToolMessage(
	callId: string,
	toolName: string,
	result: CallToolResult,
	storeBinary: BinaryStore,
): Promise<ToolMessage> {
	const lines: string[] = [];
	const attachments: BinaryReference[] = [];
	const attach = async (
		kind: BinaryReference['kind'],
		base64: string,
		mimeType: string,
		uri?: string,
	) => {
		const fileName = `${callId}_${attachments.length + 1}${extensionOf(mimeType)}`;
		const binaryProperty = await storeBinary(Buffer.from(base64, 'base64'), mimeType, fileName);
		attachments.push(
			uri === undefined
				? { binaryProperty, kind, mimeType }
				: { binaryProperty, kind, mimeType, uri },
		);
		return `[${kind} ${mimeType}${uri ? ` ${uri}` : ''} attached as binary '${binaryProperty}']`;
	};
	for (const part of result.content ?? []) lines.push(await describePart(part, attach));

	let content = lines.join('\n');
	if (content === '' && result.structuredContent !== undefined)
		content = JSON.stringify(result.structuredContent);
	if (content === '') content = '(the tool returned no content)';

	const message: ToolMessage = { role: 'tool', tool_call_id: callId, content, name: toolName };
	if (result.isError) message.isError = true;
	if (result.structuredContent !== undefined) message.structuredContent = result.structuredContent;
	if (attachments.length > 0) message.attachments = attachments;
	return message;
}

async function describePart(
	part: ContentPart,
	attach: (
		kind: BinaryReference['kind'],
		base64: string,
		mimeType: string,
		uri?: string,
	) => Promise<string>,
): Promise<string> {
	switch (part.type) {
		case 'text':
			return part.text;
		case 'image':
		case 'audio':
			return attach(part.type, part.data, part.mimeType);
		case 'resource_link':
			return `[resource link: ${part.name} ${part.uri}]`;
		case 'resource': {
			const { resource } = part;
			if ('text' in resource) return `[resource ${resource.uri}]\n${resource.text}`;
			return attach(
				'blob',
				resource.blob,
				resource.mimeType ?? 'application/octet-stream',
				resource.uri,
			);
		}
		default:
			return JSON.stringify(part);
	}
}

const EXTENSIONS: Record<string, string> = {
	'image/png': '.png',
	'image/jpeg': '.jpg',
	'image/gif': '.gif',
	'image/webp': '.webp',
	'audio/wav': '.wav',
	'audio/mpeg': '.mp3',
	'application/pdf': '.pdf',
	'application/json': '.json',
	'text/plain': '.txt',
};

function extensionOf(mimeType: string): string {
	return EXTENSIONS[mimeType] ?? '';
}

/**
 * The result as the trace keeps it: the base64 of each image, audio clip or blob replaced by the
 * binary property that holds its bytes (attachments are made in content order), so a trace never
 * inlines binary data.
 */
export function withBinaryReferences(
	result: CallToolResult,
	attachments: readonly BinaryReference[] = [],
): CallToolResult {
	let next = 0;
	const reference = (base64: string) => ({
		binaryProperty: attachments[next++]?.binaryProperty ?? null,
		bytes: Buffer.byteLength(base64, 'base64'),
	});
	const content = (result.content ?? []).map((part) => {
		if (part.type === 'image' || part.type === 'audio') {
			const { data, ...rest } = part;
			return { ...rest, data: reference(data) };
		}
		if (part.type === 'resource' && 'blob' in part.resource) {
			const { blob, ...resource } = part.resource;
			return { ...part, resource: { ...resource, blob: reference(blob) } };
		}
		return part;
	});
	return { ...result, content } as CallToolResult;
}
