import type { ICredentialType, INodeProperties } from 'n8n-workflow';
import { MODEL_API_ICON, modelApiProperties } from '../nodes/shared/modelApiCredential';

export class OllamaNativeApi implements ICredentialType {
	name = 'ollamaNativeApi';

	displayName = 'Ollama API (Native)';

	icon = MODEL_API_ICON;

	documentationUrl =
		'https://github.com/ollama/ollama/blob/main/docs/api.md#generate-a-chat-completion';

	properties: INodeProperties[] = modelApiProperties({
		defaultBaseUrl: 'http://localhost:11434',
		baseUrlDescription: 'Where Ollama listens; /api/chat is added to it',
		apiKeyDescription:
			'Sent as a bearer token, for ollama.com or a proxy in front of Ollama. Leave empty for a local Ollama.',
	});
}
