import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import type { EndpointConfig } from '../../lib/model/openaiCompatible';
import { namedValuesToRecord } from '../shared/namedValues';

export const CREDENTIAL_TYPE = 'openAiCompatibleApi';

export function endpointFromCredentials(credentials: ICredentialDataDecryptedObject): EndpointConfig {
	const headers = namedValuesToRecord(credentials.headers, 'header');
	return {
		baseUrl: String(credentials.baseUrl ?? '').trim().replace(/\/+$/, '') || 'https://api.openai.com/v1',
		apiKey: String(credentials.apiKey ?? '').trim() || undefined,
		organization: String(credentials.organization ?? '').trim() || undefined,
		headers,
	};
}
