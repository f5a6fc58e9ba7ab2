import { NodeConnectionTypes, type IExecuteFunctions, type INodeExecutionData, type INodeType, type INodeTypeDescription } from 'n8n-workflow';
import { processItems } from '../shared/items';
import { decide } from './decide';
import { properties } from './description';
import { CREDENTIAL_TYPE, endpointFromCredentials } from './endpoint';
import { openAiCompatibleModels, searchModels } from './methods';

export class ToolCallingModel implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Tool Calling Model',
		name: 'toolCallingModel',
		icon: { light: 'file:model.svg', dark: 'file:model.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ $parameter["model"].value }}',
		description: 'One model turn: the model answers, or asks for tool calls that leave as items',
		defaults: { name: 'Tool Calling Model' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main, NodeConnectionTypes.Main],
		outputNames: ['Tool Calls', 'Final Answer'],
		credentials: [{ name: 'openAiCompatibleApi', required: true, testedBy: 'openAiCompatibleModels' }],
		properties,
	};

	methods = {
		listSearch: { searchModels },
		credentialTest: { openAiCompatibleModels },
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const endpoint = endpointFromCredentials(await this.getCredentials(CREDENTIAL_TYPE));
		const concurrency = (this.getNodeParameter('options.concurrency', 0, 4) as number) || 4;
		return processItems(this, 2, concurrency, decide(this, endpoint));
	}
}
