import {
	NodeConnectionTypes,
	type IExecuteFunctions,
	type INodeExecutionData,
	type INodeType,
	type INodeTypeDescription,
} from 'n8n-workflow';
import { processItems } from '../shared/items';
import { nodeRedactions } from '../shared/traceOptions';
import { properties } from './description';
import { load } from './load';
import { save } from './save';

export class ChatMemory implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Chat Memory',
		name: 'chatMemory',
		icon: { light: 'file:memory.svg', dark: 'file:memory.dark.svg' },
		group: ['transform'],
		version: 1,
		subtitle: '={{ { load: "Load", save: "Save" }[$parameter["operation"]] }}',
		description:
			'Keep a chat session’s conversation, every tool call and result included, between its messages (stored with a Data table node)',
		defaults: { name: 'Chat Memory' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		properties,
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const operation = this.getNodeParameter('operation', 0) as 'load' | 'save';
		if (operation === 'load') return load(this);
		return processItems(this, 1, Infinity, save(this), nodeRedactions(this, []));
	}
}
