import type { ICredentialType, INodeProperties } from 'n8n-workflow';
import { MODEL_API_ICON, modelApiProperties } from '../nodes/shared/modelApiCredential';

export class OllamaNativeApi implements ICredentialType {
	name = 'ollamaNativeApi';

	displayName = 'Ollama API (Native)';

	icon = MODEL_API_ICON;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-tool-calling#credentials';

	properties: INodeProperties[] = modelApiProperties({
		defaultBaseUrl: 'http://localhost:11434',
		baseUrlDescription: 'Where Ollama listens; /api/chat is added to it',
		apiKeyDescription:
			'Sent as a bearer token, for ollama.com or a proxy in front of Ollama. Leave empty for a local Ollama.',
	});
}
