import type { ICredentialDataDecryptedObject } from 'n8n-workflow';
import { anthropicDialect } from '../../lib/dialects/anthropic';
import { ANTHROPIC_BASE_URL } from '../../lib/dialects/anthropic/http';
import { geminiDialect } from '../../lib/dialects/gemini';
import { GEMINI_BASE_URL } from '../../lib/dialects/gemini/http';
import { ollamaDialect } from '../../lib/dialects/ollama';
import { OLLAMA_BASE_URL } from '../../lib/dialects/ollama/http';
import { createOpenAIDialect, type OpenAIRequestOptions } from '../../lib/dialects/openai';
import { OPENAI_BASE_URL } from '../../lib/dialects/openai/http';
import { createResponsesDialect, type ResponsesRequestOptions } from '../../lib/dialects/responses';
import type { Dialect, DialectId, EndpointConfig } from '../../lib/dialects/types';
import { namedValuesToRecord } from '../shared/namedValues';

/** Request options only some dialects read; each takes its own. */
export type DialectOptions = OpenAIRequestOptions & ResponsesRequestOptions;

export interface Provider {
	credentialType: string;
	defaultBaseUrl: string;
	dialect(options: DialectOptions): Dialect;
}

/** Each provider the node offers: its credential and its dialect. The node only picks from here. */
export const PROVIDERS: Record<DialectId, Provider> = {
	openaiChat: {
		credentialType: 'openAiCompatibleApi',
		defaultBaseUrl: OPENAI_BASE_URL,
		dialect: (options) => createOpenAIDialect(options) as Dialect,
	},
	openaiResponses: {
		credentialType: 'openAiCompatibleApi',
		defaultBaseUrl: OPENAI_BASE_URL,
		dialect: (options) => createResponsesDialect(options) as Dialect,
	},
	anthropic: {
		credentialType: 'anthropicMessagesApi',
		defaultBaseUrl: ANTHROPIC_BASE_URL,
		dialect: () => anthropicDialect as Dialect,
	},
	gemini: {
		credentialType: 'geminiApi',
		defaultBaseUrl: GEMINI_BASE_URL,
		dialect: () => geminiDialect as Dialect,
	},
	ollama: {
		credentialType: 'ollamaNativeApi',
		defaultBaseUrl: OLLAMA_BASE_URL,
		dialect: () => ollamaDialect as Dialect,
	},
};

export function providerOf(id: string): Provider {
	const provider = PROVIDERS[id as DialectId];
	if (!provider) throw new Error(`Unknown provider '${id}'`);
	return provider;
}

/** The provider whose credential type this is; the Chat Completions one for the shared OpenAI credential. */
export function providerIdOfCredential(credentialType: string): DialectId {
	const found = (Object.keys(PROVIDERS) as DialectId[]).find(
		(id) => PROVIDERS[id].credentialType === credentialType,
	);
	if (!found) throw new Error(`No provider uses credentials of type '${credentialType}'`);
	return found;
}

export function endpointFromCredentials(
	provider: Provider,
	credentials: ICredentialDataDecryptedObject,
): EndpointConfig {
	const text = (key: string) => String(credentials[key] ?? '').trim() || undefined;
	const baseUrl = text('baseUrl') ?? provider.defaultBaseUrl;
	// The URL shows in every trace entry and error: a password in it would too (and it is not sent as basic auth).
	const parsed = URL.parse(baseUrl);
	if (parsed && (parsed.username !== '' || parsed.password !== ''))
		throw new Error(
			'The Base URL holds a user name or password, which every trace would show: give the Base URL without it, and the credential as the API Key or as a header (Authorization: Basic …)',
		);
	return {
		baseUrl,
		apiKey: text('apiKey'),
		organization: text('organization'),
		version: text('version'),
		headers: namedValuesToRecord(credentials.headers, 'header'),
	};
}
