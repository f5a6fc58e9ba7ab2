import type { ICredentialType, INodeProperties } from 'n8n-workflow';
import { MODEL_API_ICON, modelApiProperties } from '../nodes/shared/modelApiCredential';

export class GeminiApi implements ICredentialType {
	name = 'geminiApi';

	displayName = 'Google Gemini API';

	icon = MODEL_API_ICON;

	documentationUrl = 'https://www.npmjs.com/package/n8n-nodes-tool-calling#credentials';

	properties: INodeProperties[] = modelApiProperties({
		defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
		baseUrlDescription: 'Where the API lives; /models/MODEL:generateContent is added to it',
		apiKeyDescription: 'Sent in the x-goog-api-key header',
	});
}
