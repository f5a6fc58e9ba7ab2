import type { ICredentialType, INodeProperties } from 'n8n-workflow';
import { MODEL_API_ICON, modelApiProperties } from '../nodes/shared/modelApiCredential';

export class OpenAiCompatibleApi implements ICredentialType {
	name = 'openAiCompatibleApi';

	displayName = 'OpenAI-Compatible API';

	icon = MODEL_API_ICON;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-tool-calling#credentials';

	properties: INodeProperties[] = modelApiProperties({
		defaultBaseUrl: 'https://api.openai.com/v1',
		baseUrlDescription:
			'Where the API lives (Chat Completions and Responses). Ollama: http://localhost:11434/v1; LM Studio: http://localhost:1234/v1; vLLM: http://HOST:8000/v1; OpenRouter: https://openrouter.ai/api/v1. Azure OpenAI: https://RES.openai.azure.com/openai/v1, or a deployment with its version, https://RES.openai.azure.com/openai/deployments/NAME?api-version=2024-10-21, the key as an extra header api-key.',
		apiKeyDescription:
			'Sent as a bearer token. Leave empty for local servers that need none, or when an extra header carries the key (Azure OpenAI: api-key).',
		vendorFields: [
			{
				displayName: 'Organization ID',
				name: 'organization',
				type: 'string',
				default: '',
				description: 'For OpenAI accounts in several organizations; leave empty otherwise',
			},
		],
	});
}
