import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import type { EndpointConfig } from '../../lib/model/openaiCompatible';

export const CREDENTIAL_TYPE = 'openAiCompatibleApi';

export function endpointFromCredentials(credentials: ICredentialDataDecryptedObject): EndpointConfig {
	const pairs = (credentials.headers as { header?: Array<{ name?: string; value?: string }> } | undefined)?.header ?? [];
	const headers: Record<string, string> = {};
	for (const { name, value } of pairs) if (name?.trim()) headers[name.trim()] = value ?? '';
	return {
		baseUrl: String(credentials.baseUrl ?? '').trim().replace(/\/+$/, '') || 'https://api.openai.com/v1',
		apiKey: String(credentials.apiKey ?? '').trim() || undefined,
		organization: String(credentials.organization ?? '').trim() || undefined,
		headers,
	};
}
