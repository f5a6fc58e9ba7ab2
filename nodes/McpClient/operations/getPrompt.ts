import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	ResourceMapperValue,
} from 'n8n-workflow';
import {
	promptArguments,
	promptMessages,
	promptResultForTrace,
} from '../../../lib/execution/prompts';
import { redactPromptResult } from '../../../lib/execution/redactResult';
import type { McpConnection, McpPrompt, McpServerConfig } from '../../../lib/mcp';
import { traceEntry } from '../../../lib/trace/entries';
import type { Routed } from '../../shared/items';
import type { NodeRedaction } from '../../shared/traceOptions';
import { serverAsker } from '../server';
import { serverItemLocator } from './serverItemLocator';
import { requestLimitsOf } from './settings';

const show = { show: { operation: ['getPrompt'] } };

export const getPromptProperties: INodeProperties[] = [
	serverItemLocator({
		displayName: 'Prompt',
		name: 'prompt',
		operation: 'getPrompt',
		searchListMethod: 'searchPrompts',
		typed: { displayName: 'By Name', name: 'name', placeholder: 'e.g. summarize' },
	}),
	{
		displayName: 'Arguments',
		name: 'promptArguments',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		required: true,
		displayOptions: show,
		typeOptions: {
			loadOptionsDependsOn: ['prompt.value'],
			resourceMapper: {
				resourceMapperMethod: 'getPromptArgumentFields',
				mode: 'add',
				fieldWords: { singular: 'argument', plural: 'arguments' },
				addAllFields: true,
				supportAutoMap: false,
				noFieldsError: 'This prompt takes no arguments',
			},
		},
	},
];

/**
 * Get Prompt: `prompts/get` with arguments from the form, its messages appended to the item's
 * conversation for the Tool Calling Model to continue (content other than text stored as binary
 * data and named in the message), with a trace entry.
 */
export function getPrompt(
	context: IExecuteFunctions,
	config: McpServerConfig,
	redactionFor: (itemIndex: number) => NodeRedaction,
) {
	const limits = requestLimitsOf(context);
	// The prompts' argument lists, asked once per execution; only to type the arguments, so a
	// server that cannot list them still gets the prompt asked for.
	let listing: Promise<McpPrompt[]> | undefined;
	const promptNamed = async (connection: McpConnection, name: string): Promise<McpPrompt> => {
		listing ??= connection.listPrompts(limits).catch(() => []);
		const listed = (await listing).find((prompt) => prompt.name === name);
		// A name the server does not list is the server's to refuse.
		return listed ?? { name, arguments: [] };
	};
	const ask = serverAsker(context, config);
	return async (item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
		const name = String(context.getNodeParameter('prompt', itemIndex, '', { extractValue: true }));
		const form = context.getNodeParameter('promptArguments', itemIndex) as ResourceMapperValue;
		const redaction = redactionFor(itemIndex);
		const { conversation, output, result, server, storeBinary, timing } = await ask(
			item,
			itemIndex,
			async (connection) => {
				const args = promptArguments(await promptNamed(connection, name), form.value ?? {});
				const answer = await connection.getPrompt(name, args, limits);
				return { args, answer: redactPromptResult(answer, redaction.redactor) };
			},
		);
		const { args, answer } = result;
		const { messages, binaryProperties } = await promptMessages(answer, storeBinary, name);
		const entry = traceEntry(
			'prompts.get',
			timing(),
			{ server, prompt: name, messageCount: messages.length },
			{ arguments: args, result: promptResultForTrace(answer, binaryProperties) },
			redaction.trace,
		);
		output.json = {
			...conversation,
			messages: [...conversation.messages, ...messages],
			trace: [...conversation.trace, entry],
		};
		return { output: 0, item: output };
	};
}
