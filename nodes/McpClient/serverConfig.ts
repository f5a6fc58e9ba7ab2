import type { ICredentialDataDecryptedObject, IExecuteFunctions } from 'n8n-workflow';
import type { HttpServerConfig, HttpTransportMode, McpServerConfig, StdioServerConfig } from '../../lib/mcp';

export type ConnectionType = 'stdio' | 'http';

export const CREDENTIAL_TYPES: Record<ConnectionType, string> = {
	stdio: 'mcpStdioServerApi',
	http: 'mcpHttpServerApi',
};

type Pair = { name?: string; value?: string };

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
	const args = (credentials.arguments as { argument?: Pair[] } | undefined)?.argument ?? [];
	const variables = (credentials.environment as { variable?: Pair[] } | undefined)?.variable ?? [];
	return {
		transport: 'stdio',
		command: String(credentials.command ?? '').trim(),
		args: args.map((argument) => argument.value ?? ''),
		env: pairsToRecord(variables),
		cwd: String(credentials.cwd ?? '').trim() || undefined,
	};
}

function httpConfig(credentials: ICredentialDataDecryptedObject): HttpServerConfig {
	const headers: Record<string, string> = {};
	if (credentials.authentication === 'bearer') headers.Authorization = `Bearer ${String(credentials.token ?? '')}`;
	if (credentials.authentication === 'headers') {
		Object.assign(headers, pairsToRecord((credentials.headers as { header?: Pair[] } | undefined)?.header ?? []));
	}
	return {
		transport: 'http',
		url: String(credentials.url ?? '').trim(),
		headers,
		mode: (credentials.transport as HttpTransportMode | undefined) ?? 'auto',
	};
}

function pairsToRecord(pairs: Pair[]): Record<string, string> {
	const record: Record<string, string> = {};
	for (const { name, value } of pairs) if (name?.trim()) record[name.trim()] = value ?? '';
	return record;
}
