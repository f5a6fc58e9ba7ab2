import type { AssistantMessage, JsonSchema, UserMessage } from '../conversation/types';
import type { GetPromptResult, McpPrompt } from '../mcp/connection';
import { formValuesToArguments } from '../schema/formFields';
import {
	binaryPlaceholders,
	partWithBinaryReference,
	renderContent,
	type BinaryStore,
} from './resultMessage';

/** A prompt's arguments as the JSON Schema a form is built from: every argument is text. */
export function promptArgumentsSchema(prompt: McpPrompt): JsonSchema {
	const declared = prompt.arguments ?? [];
	return {
		type: 'object',
		properties: Object.fromEntries(
			declared.map((argument) => [
				argument.name,
				{
					type: 'string',
					...(argument.description !== undefined && { description: argument.description }),
				},
			]),
		),
		required: declared.filter((argument) => argument.required).map((argument) => argument.name),
	};
}

/** A prompt's required arguments the values leave empty: the server would refuse the request. */
export class MissingPromptArguments extends Error {
	constructor(prompt: string, missing: string[]) {
		super(
			`Prompt '${prompt}' needs the argument${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`,
		);
		this.name = 'MissingPromptArguments';
	}
}

/** Form values as `prompts/get` arguments: text, empty optional ones left out, required ones checked. */
export function promptArguments(
	prompt: McpPrompt,
	values: Record<string, unknown>,
): Record<string, string> {
	const schema = promptArgumentsSchema(prompt);
	const args = Object.fromEntries(
		Object.entries(formValuesToArguments(values, schema))
			.filter(([, value]) => value !== undefined && value !== null && value !== '')
			.map(([name, value]) => [name, typeof value === 'string' ? value : JSON.stringify(value)]),
	);
	const missing = (schema.required as string[]).filter((name) => !(name in args));
	if (missing.length > 0) throw new MissingPromptArguments(prompt.name, missing);
	return args;
}

/** A prompt's messages for the conversation, and the binary properties its content was stored under. */
export interface PromptMessages {
	messages: Array<UserMessage | AssistantMessage>;
	binaryProperties: string[];
}

/**
 * A prompt's messages as conversation messages the Tool Calling Model continues: the text of each,
 * images, audio and blobs stored on the item and named in it (files `<fileStem>_<message>_<n>`).
 */
export async function promptMessages(
	result: GetPromptResult,
	storeBinary: BinaryStore,
	fileStem: string,
): Promise<PromptMessages> {
	const messages: Array<UserMessage | AssistantMessage> = [];
	const binaryProperties: string[] = [];
	for (const [index, message] of result.messages.entries()) {
		const rendered = await renderContent(
			[message.content],
			storeBinary,
			`${fileStem}_${index + 1}`,
		);
		messages.push({ role: message.role, content: rendered.text });
		binaryProperties.push(...rendered.attachments.map((attachment) => attachment.binaryProperty));
	}
	return { messages, binaryProperties };
}

/** The prompt as the trace keeps it: base64 content replaced by the binary property holding it. */
export function promptResultForTrace(
	result: GetPromptResult,
	binaryProperties: readonly string[],
): GetPromptResult {
	const reference = binaryPlaceholders(binaryProperties);
	return {
		...result,
		messages: result.messages.map((message) => ({
			...message,
			content: partWithBinaryReference(message.content, reference),
		})),
	} as GetPromptResult;
}
