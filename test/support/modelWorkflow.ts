import type { IDataObject, INode } from 'n8n-workflow';
import { ToolCallingModel } from '../../nodes/ToolCallingModel/ToolCallingModel.node';
import type { ChatCompletionsStandIn } from './chatCompletionsStandIn';
import { nodeTypesFrom } from './engine';

export const MODEL_TYPE = 'n8n-nodes-tool-calling.toolCallingModel';
export const modelNodeTypes = () => nodeTypesFrom(new ToolCallingModel());

export function modelNode(
	name: string,
	parameters: IDataObject,
	extra: Partial<INode> = {},
): INode {
	return {
		id: name,
		name,
		type: MODEL_TYPE,
		typeVersion: 1,
		position: [0, 0],
		parameters: { model: { __rl: true, mode: 'id', value: 'gpt-4o-mini' }, ...parameters },
		credentials: { openAiCompatibleApi: { id: 'openai', name: 'OpenAI-compatible' } },
		...extra,
	};
}

/** The credential pointing at the stand-in endpoint. */
export function standInCredential(api: ChatCompletionsStandIn, extra: IDataObject = {}) {
	return {
		openAiCompatibleApi: {
			baseUrl: api.baseURL,
			apiKey: 'sk-test-secret-key',
			organization: '',
			headers: {},
			...extra,
		},
	};
}
