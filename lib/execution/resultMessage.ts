import type { CallToolResult } from '../mcp/connection';
import type { BinaryReference, ResourceLink, ToolMessage } from '../conversation/types';

/** Stores bytes as binary data of the item and returns the binary property name it got. */
export type BinaryStore = (data: Buffer, mimeType: string, fileName: string) => Promise<string>;

/** One block of MCP content: of a tool result, a prompt message or an embedded resource. */
export type ContentPart = CallToolResult['content'][number];

/** MCP content as text, with what it attached to the item and the resources it links to. */
export interface RenderedContent {
	text: string;
	attachments: BinaryReference[];
	resourceLinks: ResourceLink[];
}

/**
 * MCP content as the conversation holds it (messages carry text only): text stays text; images,
 * audio and blobs become binary data of the item with a line saying where they are; a resource
 * link becomes a line and a `ResourceLink` a Read Resource node can follow. Files are named
 * `<fileStem>_<n>`.
 */
export async function renderContent(
	parts: readonly ContentPart[],
	storeBinary: BinaryStore,
	fileStem: string,
): Promise<RenderedContent> {
	const lines: string[] = [];
	const attachments: BinaryReference[] = [];
	const resourceLinks: ResourceLink[] = [];
	const attach = async (
		kind: BinaryReference['kind'],
		base64: string,
		mimeType: string,
		uri?: string,
	) => {
		const fileName = `${fileStem}_${attachments.length + 1}${extensionOf(mimeType)}`;
		const binaryProperty = await storeBinary(Buffer.from(base64, 'base64'), mimeType, fileName);
		attachments.push(
			uri === undefined
				? { binaryProperty, kind, mimeType }
				: { binaryProperty, kind, mimeType, uri },
		);
		return `[${kind} ${mimeType}${uri ? ` ${uri}` : ''} attached as binary '${binaryProperty}']`;
	};
	for (const part of parts) {
		if (part.type === 'resource_link') {
			const { uri, name, title, description, mimeType } = part;
			resourceLinks.push({
				uri,
				name,
				...(title !== undefined && { title }),
				...(description !== undefined && { description }),
				...(mimeType !== undefined && { mimeType }),
			});
			lines.push(`[resource link: ${name} ${uri}]`);
		} else lines.push(await describePart(part, attach));
	}
	return { text: lines.join('\n'), attachments, resourceLinks };
}

/**
 * An MCP result as a tool message: its content rendered (see renderContent), structured content
 * kept, and the text of the structured content when there is nothing else to say.
 */
export async function toToolMessage(
	callId: string,
	toolName: string,
	result: CallToolResult,
	storeBinary: BinaryStore,
): Promise<ToolMessage> {
	const rendered = await renderContent(result.content ?? [], storeBinary, callId);
	let content = rendered.text;
	// Parts that say nothing (empty texts joined into a line end) are no content either.
	const blank = content.trim() === '';
	if (blank && result.structuredContent !== undefined)
		content = JSON.stringify(result.structuredContent);
	else if (blank)
		content = result.isError
			? '(the tool reported an error without a message)'
			: '(the tool returned no content)';

	const message: ToolMessage = { role: 'tool', tool_call_id: callId, content, name: toolName };
	if (result.isError) message.isError = true;
	if (result.structuredContent !== undefined) message.structuredContent = result.structuredContent;
	if (rendered.attachments.length > 0) message.attachments = rendered.attachments;
	if (rendered.resourceLinks.length > 0) message.resourceLinks = rendered.resourceLinks;
	return message;
}

async function describePart(
	part: Exclude<ContentPart, { type: 'resource_link' }>,
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

export function extensionOf(mimeType: string): string {
	return EXTENSIONS[mimeType] ?? '';
}

/** The trace's form of base64 data: the binary property that holds its bytes, and their count. */
export interface BinaryPlaceholder {
	binaryProperty: string | null;
	bytes: number;
}

/** Hands out the placeholders of binary data in the order it was attached. */
export function binaryPlaceholders(
	properties: ReadonlyArray<string | undefined>,
): (base64: string) => BinaryPlaceholder {
	let next = 0;
	return (base64) => ({
		binaryProperty: properties[next++] ?? null,
		bytes: Buffer.byteLength(base64, 'base64'),
	});
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
	const reference = binaryPlaceholders(attachments.map((attachment) => attachment.binaryProperty));
	const content = (result.content ?? []).map((part) => partWithBinaryReference(part, reference));
	return { ...result, content } as CallToolResult;
}

/** One content part with its base64 (image, audio, blob) replaced by a placeholder. */
export function partWithBinaryReference(
	part: ContentPart,
	reference: (base64: string) => BinaryPlaceholder,
): unknown {
	if (part.type === 'image' || part.type === 'audio') {
		const { data, ...rest } = part;
		return { ...rest, data: reference(data) };
	}
	if (part.type === 'resource' && 'blob' in part.resource) {
		const { blob, ...resource } = part.resource;
		return { ...part, resource: { ...resource, blob: reference(blob) } };
	}
	return part;
}
