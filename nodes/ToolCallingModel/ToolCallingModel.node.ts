import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { failEveryItem, processItems } from '../shared/items';
import { decide, FINAL_ANSWER_OUTPUT } from './decide';
import { properties } from './description';
import { modelApiConnection, searchModels } from './methods';
import { concurrencyOf } from './settings';

export class ToolCallingModel implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Tool Calling Model',
		name: 'toolCallingModel',
		icon: { light: 'file:model.svg', dark: 'file:model.dark.svg' },
		group: ['transform'],
		version: 1,
		// n8n resolves a resource locator parameter to its value in subtitles.
		subtitle: '={{ $parameter["model"] }}',
		description: 'One model turn: the model answers, or asks for tool calls that leave as items',
		defaults: { name: 'Tool Calling Model' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main, NodeConnectionTypes.Main],
		outputNames: ['Tool Calls', 'Final Answer'],
		// One credential per provider; the OpenAI one serves both OpenAI APIs. `hide` rather than `show`:
		// n8n's editor takes a parameter that `show` ties credentials to for an authentication switch
		// and moves it out of the panel, where Provider must stay (one credential serves two providers).
		credentials: [
			{
				name: 'openAiCompatibleApi',
				required: true,
				testedBy: 'modelApiConnection',
				displayOptions: { hide: { provider: ['anthropic', 'gemini', 'ollama'] } },
			},
			{
				name: 'anthropicMessagesApi',
				required: true,
				testedBy: 'modelApiConnection',
				displayOptions: {
					hide: { provider: ['openaiChat', 'openaiResponses', 'gemini', 'ollama'] },
				},
			},
			{
				name: 'geminiApi',
				required: true,
				testedBy: 'modelApiConnection',
				displayOptions: {
					hide: { provider: ['openaiChat', 'openaiResponses', 'anthropic', 'ollama'] },
				},
			},
			{
				name: 'ollamaNativeApi',
				required: true,
				testedBy: 'modelApiConnection',
				displayOptions: {
					hide: { provider: ['openaiChat', 'openaiResponses', 'anthropic', 'gemini'] },
				},
			},
			// Optional: a fallback of the provider's own credential type may use the provider's credential.
			{
				name: 'fallbackModelApi',
				required: false,
				testedBy: 'modelApiConnection',
				displayOptions: { hide: { fallbackProvider: ['none'] } },
			},
		],
		properties,
	};

	methods = {
		listSearch: { searchModels },
		credentialTest: { modelApiConnection },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		// A failed item continues by Final Answer: by Tool Calls it would loop back here without end.
		let decided: Awaited<ReturnType<typeof decide>>;
		try {
			decided = await decide(this);
		} catch (error) {
			return failEveryItem(this, error, 2, FINAL_ANSWER_OUTPUT);
		}
		const { processItem, redactionFor } = decided;
		return processItems(
			this,
			2,
			concurrencyOf(this),
			processItem,
			redactionFor,
			FINAL_ANSWER_OUTPUT,
		);
	}
}
