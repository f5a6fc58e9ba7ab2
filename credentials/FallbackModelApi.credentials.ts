import type { ICredentialType, INodeProperties } from 'n8n-workflow';
import { MODEL_API_ICON, modelApiProperties } from '../nodes/shared/modelApiCredential';
import { PROVIDER_OPTIONS } from '../nodes/ToolCallingModel/description';

/**
 * The fallback model's API, for the Tool Calling Model's Fallback Provider. n8n shows a node's
 * credential of a type by one parameter's value, so the fallback's API has a credential type of its
 * own, for any provider, rather than the provider's own type shown a second time.
 */
export class FallbackModelApi implements ICredentialType {
	name = 'fallbackModelApi';

	displayName = 'Fallback Model API';

	icon = MODEL_API_ICON;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-tool-calling#fallback-model';

	properties: INodeProperties[] = [
		{
			displayName: 'Provider',
			name: 'provider',
			type: 'options',
			default: 'anthropic',
			options: PROVIDER_OPTIONS.map(({ name, value }) => ({ name, value })),
			description: 'The API this credential reaches: the node’s Fallback Provider must be the same',
		},
		...modelApiProperties({
			defaultBaseUrl: '',
			optionalBaseUrl: { placeholder: 'e.g. https://api.anthropic.com' },
			baseUrlDescription: 'Where the fallback provider’s API lives; empty for the provider’s own',
			apiKeyDescription:
				'Sent the fallback provider’s way (bearer token, x-api-key or x-goog-api-key)',
			vendorFields: [
				{
					displayName: 'Organization ID (OpenAI)',
					name: 'organization',
					type: 'string',
					default: '',
				},
				{
					displayName: 'API Version (Anthropic)',
					name: 'version',
					type: 'string',
					default: '',
					placeholder: '2023-06-01',
				},
			],
			headersDescription:
				'Sent on every request to the fallback, e.g. for a gateway or proxy in front of it',
		}),
	];
}
