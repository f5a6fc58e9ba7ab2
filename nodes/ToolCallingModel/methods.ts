import type {
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	ILoadOptionsFunctions,
	INodeCredentialTestResult,
	INodeListSearchResult,
} from 'n8n-workflow';
import { listModels } from '../../lib/model/transport';
import { nodeHttpSend, n8nLegacyHttpSend } from '../shared/modelHttp';
import { endpointFromCredentials, providerIdOfCredential, providerOf } from './providers';

const EDITOR_CALL = { timeoutMs: 15_000, maxRetries: 1 };

export async function searchModels(
	this: ILoadOptionsFunctions,
	filter?: string,
): Promise<INodeListSearchResult> {
	const provider = providerOf(this.getNodeParameter('provider', 'openaiChat') as string);
	const endpoint = endpointFromCredentials(
		provider,
		await this.getCredentials(provider.credentialType),
	);
	const models = await listModels(provider.dialect({}), endpoint, {
		...EDITOR_CALL,
		send: nodeHttpSend(this),
	});
	const needle = filter?.toLowerCase() ?? '';
	return {
		results: models
			.filter((id) => id.toLowerCase().includes(needle))
			.map((id) => ({ name: id, value: id })),
	};
}

/** Lists the endpoint's models with the credential being saved, whichever vendor it is for. */
export async function modelApiConnection(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	try {
		// The fallback's credential names the provider it is for; the others are the provider's own.
		const provider = providerOf(
			credential.type === 'fallbackModelApi'
				? String(credential.data?.provider ?? '')
				: providerIdOfCredential(credential.type),
		);
		const endpoint = endpointFromCredentials(provider, credential.data ?? {});
		const models = await listModels(provider.dialect({}), endpoint, {
			...EDITOR_CALL,
			send: n8nLegacyHttpSend(this.helpers),
		});
		const shown = models.slice(0, 5).join(', ');
		return {
			status: 'OK',
			message: `Connected: ${models.length} models${shown ? ` (${shown}${models.length > 5 ? ', …' : ''})` : ''}`,
		};
	} catch (error) {
		return { status: 'Error', message: (error as Error).message };
	}
}
