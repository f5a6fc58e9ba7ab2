import type { ICredentialType, Icon, INodeProperties } from 'n8n-workflow';
import { namedValuesProperty } from '../nodes/shared/namedValues';

export class OpenAiCompatibleApi implements ICredentialType {
	name = 'openAiCompatibleApi';

	displayName = 'OpenAI-Compatible API';

	icon: Icon = { light: 'file:../nodes/ToolCallingModel/model.svg', dark: 'file:../nodes/ToolCallingModel/model.dark.svg' };

	documentationUrl = 'https://platform.openai.com/docs/api-reference/chat';

	properties: INodeProperties[] = [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: 'https://api.openai.com/v1',
			required: true,
			description:
				'Where the Chat Completions API lives. Ollama: http://localhost:11434/v1; LM Studio: http://localhost:1234/v1; vLLM: http://HOST:8000/v1; OpenRouter: https://openrouter.ai/api/v1.',
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description: 'Sent as a bearer token. Leave empty for local servers that need none.',
		},
		{
			displayName: 'Organization ID',
			name: 'organization',
			type: 'string',
			default: '',
			description: 'For OpenAI accounts in several organizations; leave empty otherwise',
		},
		namedValuesProperty({
			displayName: 'Extra Headers',
			name: 'headers',
			entryName: 'header',
			entryDisplayName: 'Header',
			description: 'Sent on every request, e.g. HTTP-Referer for OpenRouter or an api-key header for a gateway',
		}),
	];
}
