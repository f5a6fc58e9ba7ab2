import type { IExecuteFunctions, INodeCredentialDescription, INodeProperties } from 'n8n-workflow';
import type { DialectId } from '../../../lib/dialects/types';
import { answerSampling } from '../../../lib/execution/sampling';
import type { SamplingCapability, SamplingOptions } from '../../../lib/mcp';
import { endpointSecrets } from '../../../lib/model/transport';
import { nodeHttpSend } from '../../shared/modelHttp';
import { commaList } from '../../shared/parameters';
import { endpointFromCredentials, PROVIDERS, providerOf } from '../../ToolCallingModel/providers';

/** Where a server's requests come while it runs: List Tools too, as what is declared decides the tools. */
const SAMPLING_OPERATIONS = ['listTools', 'executeToolCalls', 'callTool'];
/** Where the model is asked: while calls run. */
const CALLING = { operation: ['executeToolCalls', 'callTool'], sampling: ['answer'] };

const PROVIDER_NAMES: Record<DialectId, string> = {
	openaiChat: 'OpenAI-Compatible (Chat Completions)',
	openaiResponses: 'OpenAI Responses',
	anthropic: 'Anthropic',
	gemini: 'Google Gemini',
	ollama: 'Ollama',
};

export const samplingProperties: INodeProperties[] = [
	{
		displayName: 'When the Server Asks the Model',
		name: 'sampling',
		type: 'options',
		noDataExpression: true,
		default: 'decline',
		displayOptions: { show: { operation: SAMPLING_OPERATIONS } },
		description:
			"What a tool gets when it asks this client's model to write something while it runs (MCP sampling). Each request and its answer is written to the trace and to the tool message. Set it the same on the List Tools node: a server may offer some tools only to clients that answer.",
		options: [
			{
				name: 'Decline',
				value: 'decline',
				description:
					'Sampling is not offered to the server; a request it makes all the same is refused',
			},
			{
				name: 'Answer With a Model',
				value: 'answer',
				description: 'The model chosen below answers, within the limits set',
			},
		],
	},
	{
		displayName: 'Model Provider',
		name: 'samplingProvider',
		type: 'options',
		noDataExpression: true,
		default: 'openaiChat',
		displayOptions: { show: CALLING },
		options: (Object.keys(PROVIDERS) as DialectId[]).map((id) => ({
			name: PROVIDER_NAMES[id],
			value: id,
		})),
	},
	{
		displayName: 'Model',
		name: 'samplingModel',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'gpt-4o-mini',
		displayOptions: { show: CALLING },
		description: "The model that answers, unless the server's model preferences pick one below",
	},
	{
		displayName: 'Tools the Server May Offer',
		name: 'samplingTools',
		type: 'string',
		default: '',
		placeholder: 'search, lookup',
		displayOptions: { show: { operation: SAMPLING_OPERATIONS, sampling: ['answer'] } },
		description:
			'Comma-separated names of tools a sampling request may offer the model (set the same on List Tools). A request offering any other is refused, naming it. Empty: none.',
	},
	{
		displayName: 'Sampling Options',
		name: 'samplingOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show: CALLING },
		options: [
			{
				displayName: 'Max Tokens per Request',
				name: 'maxTokens',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 1000,
				description: 'The most tokens one answer may take, whatever the server asks for',
			},
			{
				displayName: 'Requests per Call',
				name: 'maxRequests',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 5,
				description: 'Model answers one tool call may ask for; later requests are refused',
			},
			{
				displayName: 'Models the Server May Choose',
				name: 'modelChoices',
				type: 'string',
				default: '',
				placeholder: 'gpt-4o, gpt-4o-mini',
				description:
					"Comma-separated. The server's model hints pick the first of these whose name holds a hint; otherwise the Model above answers.",
			},
			{
				displayName: "Use the Server's System Prompt",
				name: 'useSystemPrompt',
				type: 'boolean',
				default: true,
			},
			{
				displayName: 'Timeout (Ms)',
				name: 'timeoutMs',
				type: 'number',
				default: 120_000,
				description: 'How long one model answer may take to start',
			},
		],
	},
];

/** The model API credentials, one shown for the provider chosen (OpenAI's serves two). */
export const samplingCredentials: INodeCredentialDescription[] = [
	...new Set(Object.values(PROVIDERS).map((provider) => provider.credentialType)),
].map((credentialType) => ({
	name: credentialType,
	required: true,
	displayOptions: {
		show: {
			...CALLING,
			samplingProvider: (Object.keys(PROVIDERS) as DialectId[]).filter(
				(id) => PROVIDERS[id].credentialType === credentialType,
			),
		},
	},
}));

/** How the node answers sampling in this execution: what it declares, and each call's options. */
export interface NodeSampling {
	capability?: SamplingCapability;
	/** The model credential's secrets, hidden like the server's. */
	secrets: string[];
	options?: SamplingOptions;
}

interface SamplingOptionValues {
	maxTokens?: number;
	maxRequests?: number;
	modelChoices?: string;
	useSystemPrompt?: boolean;
	timeoutMs?: number;
}

/** Read once per execution: the choice and the model's credential are the node's, not an item's. */
export async function nodeSamplingOf(
	context: IExecuteFunctions,
	operation: string,
): Promise<NodeSampling> {
	const answering =
		SAMPLING_OPERATIONS.includes(operation) &&
		context.getNodeParameter('sampling', 0, 'decline') === 'answer';
	if (!answering) return { secrets: [] };
	const allowedTools = commaList(context.getNodeParameter('samplingTools', 0, ''));
	const capability = { tools: allowedTools.length > 0 };
	// Listing only declares: no model is asked, so its credential is not read.
	if (operation === 'listTools') return { capability, secrets: [] };
	const values = context.getNodeParameter('samplingOptions', 0, {}) as SamplingOptionValues;
	const provider = providerOf(context.getNodeParameter('samplingProvider', 0) as string);
	const endpoint = endpointFromCredentials(
		provider,
		await context.getCredentials(provider.credentialType),
	);
	const model = {
		dialect: provider.dialect({}),
		endpoint,
		model: String(context.getNodeParameter('samplingModel', 0, '')).trim(),
		call: {
			send: nodeHttpSend(context),
			timeoutMs: values.timeoutMs ?? 120_000,
			maxRetries: 2,
			signal: context.getExecutionCancelSignal(),
		},
		maxTokens: values.maxTokens ?? 1000,
		modelChoices: commaList(values.modelChoices),
		useSystemPrompt: values.useSystemPrompt ?? true,
		allowedTools,
	};
	return {
		capability,
		secrets: endpointSecrets(endpoint),
		options: {
			answer: (params) => answerSampling(params, model),
			maxRequests: values.maxRequests ?? 5,
		},
	};
}
