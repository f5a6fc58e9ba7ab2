import { ConversationError, describeType } from './read';
import type { Conversation, JsonSchema, Message, Tool } from './types';

type Definition = {
	name?: unknown;
	description?: unknown;
	inputSchema?: unknown;
	parameters?: unknown;
	type?: unknown;
	function?: Definition;
};

/**
 * Tools a person wrote by hand: our form ({name, description, inputSchema}), or OpenAI's
 * ({type:'function', function:{name, description, parameters}}) as copied from its docs.
 */
export function parseToolDefinitions(raw: unknown): Tool[] {
	const list = typeof raw === 'string' ? parseJson(raw) : raw;
	if (list === undefined || list === null || list === '') return [];
	if (!Array.isArray(list))
		throw new ConversationError(
			`Tools (JSON) must be a list of tools, but it is ${describeType(list)}`,
		);
	return list.map((entry: Definition, index) => {
		const definition = entry?.type === 'function' && entry.function ? entry.function : entry;
		if (typeof definition?.name !== 'string' || definition.name === '') {
			throw new ConversationError(`Tool ${index + 1} of Tools (JSON) has no name`);
		}
		const schema = definition.inputSchema ??
			definition.parameters ?? { type: 'object', properties: {} };
		if (typeof schema !== 'object' || schema === null || Array.isArray(schema)) {
			throw new ConversationError(
				`The input schema of tool '${definition.name}' must be a JSON Schema object`,
			);
		}
		const tool: Tool = { name: definition.name, inputSchema: schema as JsonSchema };
		if (typeof definition.description === 'string') tool.description = definition.description;
		return tool;
	});
}

/** The item's tools plus the node's own; a name the item already has keeps the item's tool. */
export function withTools(conversation: Conversation, tools: Tool[]): Conversation {
	const known = new Set(conversation.tools.map((tool) => tool.name));
	return {
		...conversation,
		tools: [...conversation.tools, ...tools.filter((tool) => !known.has(tool.name))],
	};
}

/** A new conversation's first messages, from the node's fields. */
export function openingMessages(systemMessage: string, userMessage: string): Message[] {
	if (userMessage.trim() === '') {
		throw new ConversationError(
			'The item carries no conversation and the User Message is empty: there is nothing to send',
		);
	}
	const messages: Message[] =
		systemMessage.trim() === '' ? [] : [{ role: 'system', content: systemMessage }];
	return [...messages, { role: 'user', content: userMessage }];
}

function parseJson(text: string): unknown {
	if (text.trim() === '') return undefined;
	try {
		return JSON.parse(text);
	} catch (error) {
		throw new ConversationError(`Tools (JSON) is not valid JSON: ${(error as Error).message}`);
	}
}
