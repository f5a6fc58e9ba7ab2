import type { ICredentialType, INodeProperties } from 'n8n-workflow';
import { MODEL_API_ICON, modelApiProperties } from '../nodes/shared/modelApiCredential';

export class AnthropicMessagesApi implements ICredentialType {
	name = 'anthropicMessagesApi';

	displayName = 'Anthropic Messages API';

	icon = MODEL_API_ICON;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-tool-calling#credentials';

	properties: INodeProperties[] = modelApiProperties({
		defaultBaseUrl: 'https://api.anthropic.com',
		baseUrlDescription: 'Where the API lives; /v1/messages is added to it',
		apiKeyDescription: 'Sent in the x-api-key header',
		vendorFields: [
			{
				displayName: 'API Version',
				name: 'version',
				type: 'string',
				default: '2023-06-01',
				description: 'Sent in the anthropic-version header, which every request needs',
			},
		],
	});
}
