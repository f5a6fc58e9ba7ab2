import type { IExecuteFunctions } from 'n8n-workflow';
import {
	liveModelEndpoint,
	recordedModelEndpoint,
	type ModelEndpoint,
} from '../../lib/decision/endpoint';
import type { Dialect } from '../../lib/dialects/types';
import { endpointSecrets } from '../../lib/model/transport';
import { nodeHttpSend } from '../shared/modelHttp';
import { recordingReader } from '../shared/recordingOptions';
import type { NodeRedaction } from '../shared/traceOptions';
import { endpointFromCredentials, type Provider } from './providers';
import type { NodeSettings } from './settings';

/** What answers the node's turns, chosen once per execution: the model API, or a recorded run. */
export interface ModelEndpoints {
	/** The values of the credential in use, redacted in everything the node writes. */
	secrets: readonly string[];
	/** The API's Base URL; none when a recording answers. */
	baseUrl?: string;
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
): Promise<ModelEndpoints> {
	const credentials = await context.getCredentials(provider.credentialType);
	const config = endpointFromCredentials(provider, credentials);
	const send = nodeHttpSend(context);
	return {
		secrets: endpointSecrets(config),
		baseUrl: config.baseUrl,
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
