import type { ICredentialDataDecryptedObject, IExecuteFunctions } from 'n8n-workflow';
import type {
	HttpServerConfig,
	HttpTransportMode,
	McpServerConfig,
	StdioServerConfig,
} from '../../lib/mcp';
import { namedValuesToRecord } from '../shared/namedValues';

export type ConnectionType = 'stdio' | 'http';

export const CREDENTIAL_TYPES: Record<ConnectionType, string> = {
	stdio: 'mcpStdioServerApi',
	http: 'mcpHttpServerApi',
};

export async function serverConfigOf(context: IExecuteFunctions): Promise<McpServerConfig> {
	const connectionType = context.getNodeParameter('connectionType', 0) as ConnectionType;
	const credentials = await context.getCredentials(CREDENTIAL_TYPES[connectionType]);
	return serverConfigFromCredentials(connectionType, credentials);
}

export function serverConfigFromCredentials(
	connectionType: ConnectionType,
	credentials: ICredentialDataDecryptedObject,
): McpServerConfig {
	return connectionType === 'stdio' ? stdioConfig(credentials) : httpConfig(credentials);
}

function stdioConfig(credentials: ICredentialDataDecryptedObject): StdioServerConfig {
	const args =
		(credentials.arguments as { argument?: Array<{ value?: string }> } | undefined)?.argument ?? [];
	return {
		transport: 'stdio',
		command: String(credentials.command ?? '').trim(),
		args: args.map((argument) => argument.value ?? ''),
		env: namedValuesToRecord(credentials.environment, 'variable'),
		cwd: String(credentials.cwd ?? '').trim() || undefined,
	};
}

function httpConfig(credentials: ICredentialDataDecryptedObject): HttpServerConfig {
	const headers: Record<string, string> = {};
	if (credentials.authentication === 'bearer')
		headers.Authorization = `Bearer ${String(credentials.token ?? '')}`;
	if (credentials.authentication === 'headers') {
		Object.assign(headers, namedValuesToRecord(credentials.headers, 'header'));
	}
	return {
		transport: 'http',
		url: String(credentials.url ?? '').trim(),
		headers,
		mode: (credentials.transport as HttpTransportMode | undefined) ?? 'auto',
	};
}
