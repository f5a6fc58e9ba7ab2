import { NodeOperationError, type IExecuteFunctions } from 'n8n-workflow';
import { savedNode } from '../shared/parameters';
import {
	liveModelEndpoint,
	recordedModelEndpoint,
	type ModelEndpoint,
} from '../../lib/decision/endpoint';
import type { Dialect, EndpointConfig } from '../../lib/dialects/types';
import { endpointSecrets } from '../../lib/model/transport';
import { nodeHttpSend } from '../shared/modelHttp';
import { recordingReader } from '../shared/recordingOptions';
import type { NodeRedaction } from '../shared/traceOptions';
import { endpointFromCredentials, providerOf, type Provider } from './providers';
import type { NodeSettings } from './settings';

/** What answers the node's turns, chosen once per execution: the model API, or a recorded run. */
export interface ModelEndpoints {
	/** The values of the credential in use, redacted in everything the node writes. */
	secrets: readonly string[];
	/** Where the API is and how to reach it; none when a recording answers. */
	config?: EndpointConfig;
	/** The endpoint of one item's turn, with that item's settings. */
	forItem(
		itemIndex: number,
		dialect: Dialect,
		settings: NodeSettings,
		redaction: NodeRedaction,
	): ModelEndpoint;
}

/** The provider's API, at the credential's URL: the credential is read once per execution. */
export async function liveEndpoints(
	context: IExecuteFunctions,
	provider: Provider,
	known?: EndpointConfig,
): Promise<ModelEndpoints> {
	const config =
		known ??
		endpointFromCredentials(provider, await context.getCredentials(provider.credentialType));
	const send = nodeHttpSend(context);
	return {
		secrets: endpointSecrets(config),
		config,
		forItem: (_itemIndex, dialect, settings) =>
			liveModelEndpoint(dialect, config, {
				send,
				timeoutMs: settings.timeoutMs,
				maxRetries: settings.maxRetries,
				signal: context.getExecutionCancelSignal(),
			}),
	};
}

/** Each item's recorded trace (Replay), compared after the item's redaction: no credential is read. */
export function recordedEndpoints(context: IExecuteFunctions): ModelEndpoints {
	const recordingOf = recordingReader(context, 'replay');
	return {
		secrets: [],
		forItem: (itemIndex, _dialect, _settings, redaction) =>
			recordedModelEndpoint(() => recordingOf(itemIndex, redaction.trace.redactor)),
	};
}

/**
 * The fallback model's API (Fallback Provider), when one is chosen: its own credential (Fallback
 * Model API) at the fallback provider's Base URL unless the credential names one, or the
 * provider's credential when the fallback takes the same type and has none of its own.
 */
export async function fallbackEndpoints(
	context: IExecuteFunctions,
	primary: { provider: Provider; endpoints: ModelEndpoints },
	fallback: Provider,
): Promise<ModelEndpoints> {
	if (savedNode(context).credentials?.fallbackModelApi) {
		const credentials = await context.getCredentials('fallbackModelApi');
		const named = providerOf(String(credentials.provider ?? ''));
		if (named !== fallback)
			throw new NodeOperationError(
				context.getNode(),
				`The Fallback Model API credential is for ${String(credentials.provider)}, and the Fallback Provider is another: choose a credential for the Fallback Provider`,
			);
		return liveEndpoints(context, fallback, endpointFromCredentials(fallback, credentials));
	}
	if (fallback.credentialType === primary.provider.credentialType && primary.endpoints.config)
		return liveEndpoints(context, fallback, primary.endpoints.config);
	throw new NodeOperationError(
		context.getNode(),
		'The Fallback Provider needs a credential: choose a Fallback Model API credential for it',
	);
}
