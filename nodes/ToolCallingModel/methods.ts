import type {
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	ILoadOptionsFunctions,
	INodeCredentialTestResult,
	INodeListSearchResult,
} from 'n8n-workflow';
import { listModels } from '../../lib/model/openaiCompatible';
import { CREDENTIAL_TYPE, endpointFromCredentials } from './endpoint';

const EDITOR_CALL = { timeoutMs: 15_000, maxRetries: 1 };

export async function searchModels(this: ILoadOptionsFunctions, filter?: string): Promise<INodeListSearchResult> {
	const models = await listModels(endpointFromCredentials(await this.getCredentials(CREDENTIAL_TYPE)), EDITOR_CALL);
	const needle = filter?.toLowerCase() ?? '';
	return { results: models.filter((id) => id.toLowerCase().includes(needle)).map((id) => ({ name: id, value: id })) };
}

/** Lists the endpoint's models with the credential being saved. */
export async function openAiCompatibleModels(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	try {
		const models = await listModels(endpointFromCredentials(credential.data ?? {}), EDITOR_CALL);
		const shown = models.slice(0, 5).join(', ');
		return { status: 'OK', message: `Connected: ${models.length} models${shown ? ` (${shown}${models.length > 5 ? ', …' : ''})` : ''}` };
	} catch (error) {
		return { status: 'Error', message: (error as Error).message };
	}
}
