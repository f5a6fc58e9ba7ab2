import type { INodeProperties } from 'n8n-workflow';
import { DEFAULT_CONCURRENCY } from '../shared/items';
import { recordingProperties } from '../shared/recordingOptions';
import { traceOptionsProperty } from '../shared/traceOptions';
import { budgetProperty } from './budget';

export const PROVIDER_OPTIONS = [
	{
		name: 'OpenAI-Compatible (Chat Completions)',
		value: 'openaiChat',
		description: 'OpenAI, vLLM, LM Studio, OpenRouter, Groq, Ollama’s /v1…',
	},
	{ name: 'OpenAI Responses', value: 'openaiResponses', description: 'OpenAI’s Responses API' },
	{ name: 'Anthropic', value: 'anthropic', description: 'Claude, through the Messages API' },
	{ name: 'Google Gemini', value: 'gemini', description: 'Gemini, through generateContent' },
	{ name: 'Ollama', value: 'ollama', description: 'Ollama’s native /api/chat' },
] as const;

export const properties: INodeProperties[] = [
	{
		displayName: 'Provider',
		name: 'provider',
		type: 'options',
		noDataExpression: true,
		default: 'openaiChat',
		options: [...PROVIDER_OPTIONS],
		description:
			'Which API, and so which wire format, this node speaks. The items are the same for every provider, so a conversation may switch provider between rounds.',
	},
	{
		displayName: 'Model',
		name: 'model',
		type: 'resourceLocator',
		default: { mode: 'list', value: '' },
		required: true,
		modes: [
			{
				displayName: 'From List',
				name: 'list',
				type: 'list',
				typeOptions: { searchListMethod: 'searchModels', searchable: true },
			},
			{ displayName: 'ID', name: 'id', type: 'string', placeholder: 'e.g. gpt-4.1-mini' },
		],
	},
	{
		displayName:
			'Continues the conversation each input item carries (from MCP Client or the previous round). An item without messages starts a new conversation from the fields below.',
		name: 'conversationNotice',
		type: 'notice',
		default: '',
	},
	{
		displayName: 'System Message',
		name: 'systemMessage',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		description: 'Instructions for the model, for new conversations',
	},
	{
		displayName: 'User Message',
		name: 'userMessage',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		placeholder: 'e.g. {{ $json.body.question }}',
		description:
			'The first message of a new conversation. Expressions work: a webhook body, a schedule’s date.',
	},
	{
		displayName: 'Tools (JSON)',
		name: 'nodeTools',
		type: 'json',
		default: '[]',
		description:
			'Tools defined here, added to the tools the item carries: a list of {"name", "description", "inputSchema"} (OpenAI\'s {"type":"function","function":{…}} form works too). The model may call them; their calls leave through Tool Calls for you to handle.',
	},
	{
		displayName: 'Tool Choice',
		name: 'toolChoice',
		type: 'options',
		default: 'auto',
		options: [
			{ name: 'Auto', value: 'auto', description: 'The model decides whether to call tools' },
			{ name: 'Required', value: 'required', description: 'The model must call at least one tool' },
			{ name: 'None', value: 'none', description: 'The model must answer without tools' },
			{
				name: 'One Named Tool',
				value: 'named',
				description: 'The model must call the tool named below',
			},
		],
	},
	{
		displayName: 'Tool Name',
		name: 'toolName',
		type: 'string',
		default: '',
		required: true,
		displayOptions: { show: { toolChoice: ['named'] } },
	},
	{
		displayName: 'Response Format',
		name: 'responseFormat',
		type: 'options',
		default: 'text',
		options: [
			{ name: 'Text', value: 'text', description: 'The answer as the model writes it' },
			{
				name: 'JSON',
				value: 'json',
				description: 'The answer as JSON, parsed into output',
			},
			{
				name: 'JSON Schema',
				value: 'jsonSchema',
				description:
					'The answer as JSON that matches the schema below, checked, parsed into output',
			},
		],
		description:
			'How the final answer is written. JSON answers are parsed into the item’s output (the text stays in answer); one that breaks the schema goes back to the model, naming what is wrong, up to Max Repairs. Tool calls work as before.',
	},
	{
		displayName: 'Response Schema',
		name: 'responseSchema',
		type: 'json',
		default:
			'{\n  "type": "object",\n  "properties": {\n    "answer": { "type": "string" }\n  },\n  "required": ["answer"]\n}',
		displayOptions: { show: { responseFormat: ['jsonSchema'] } },
		description:
			'The JSON Schema the answer must match (draft 2020-12, or the draft its $schema names)',
	},
	{
		displayName:
			'Ollama has no tool choice: Auto offers the tools, None leaves them out; Required and One Named Tool stop with an error. Parallel Tool Calls and Strict Schemas are not Ollama settings either.',
		name: 'ollamaNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { provider: ['ollama'] } },
	},
	{
		displayName:
			'Gemini has no switch for parallel calls: the Parallel Tool Calls option is not sent.',
		name: 'geminiNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: { provider: ['gemini'] } },
	},
	{
		displayName: 'Fallback Provider',
		name: 'fallbackProvider',
		type: 'options',
		noDataExpression: true,
		default: 'none',
		options: [{ name: 'None', value: 'none' }, ...PROVIDER_OPTIONS],
		description:
			'A second model, asked when the first fails after its retries (rate limit, server error or overload, timeout, connection refused). Its credential is the Fallback Model API one, or, for a provider of the same credential type, the provider’s own when none is set. The trace says which model answered, and why the first did not.',
	},
	{
		displayName: 'Fallback Model',
		name: 'fallbackModel',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. claude-sonnet-4-5',
		displayOptions: { hide: { fallbackProvider: ['none'] } },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [
			{
				displayName: 'Additional Body Fields',
				name: 'bodyFields',
				type: 'json',
				default: '{}',
				description:
					'Fields merged into every request body, for what the node does not model: seed, top_k, safety settings, a vendor’s beta field. Objects merge with what the node sets (Gemini’s generationConfig). A field the node writes (messages, tools, model, stream…) or already sets from an option is refused by name.',
			},
			{
				displayName: 'Announce Tool Calls',
				name: 'announceToolCalls',
				type: 'boolean',
				default: false,
				description:
					'Whether to add one line per tool the model calls ("Calling get_weather…") to the text streamed to the chat',
			},
			{
				displayName: 'Items in Parallel',
				name: 'concurrency',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: DEFAULT_CONCURRENCY,
				description: 'How many conversations are sent to the model at once',
			},
			{
				displayName: 'Keep Reasoning Between Rounds',
				name: 'keepReasoning',
				type: 'boolean',
				displayOptions: { show: { '/provider': ['openaiResponses'] } },
				default: false,
				description:
					'Whether to ask the Responses API for reasoning items (encrypted) and send them back next round, so a reasoning model keeps its chain of thought across tool calls. Models without reasoning refuse this. Responses only.',
			},
			{
				displayName: 'Max Retries',
				name: 'maxRetries',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 2,
				description:
					'Retries of a request answered 408, 409, 429 or 5xx, or whose connection failed or timed out; waiting as the Retry-After header says, else backing off',
			},
			{
				displayName: 'Max Repairs',
				name: 'maxRepairs',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 2,
				description:
					'How many times an answer that breaks the Response Format goes back to the model, naming what is wrong (each a round), before the item fails saying why',
			},
			{
				displayName: 'Max Rounds',
				name: 'maxRounds',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 10,
				description:
					'Loop guard: how many model turns one conversation may take. Past it the item leaves by Final Answer with the reason in stopReason.',
			},
			{
				displayName: 'Max Tokens',
				name: 'maxTokens',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 1024,
				description:
					'The most tokens the model may generate in one turn. Anthropic requires a limit and gets 4096 when this is not set.',
			},
			{
				displayName: 'Max Tokens Field',
				name: 'maxTokensField',
				type: 'options',
				displayOptions: { show: { '/provider': ['openaiChat'] } },
				default: 'max_completion_tokens',
				options: [
					{
						name: 'max_completion_tokens (OpenAI)',
						value: 'max_completion_tokens',
						description: "OpenAI's field, the only one its reasoning models accept",
					},
					{
						name: 'max_tokens (Older Servers)',
						value: 'max_tokens',
						description: 'For servers that read only this field and would ignore the other',
					},
				],
				description: 'Which request field carries Max Tokens (Chat Completions only)',
			},
			{
				displayName: 'Parallel Tool Calls',
				name: 'parallelToolCalls',
				type: 'boolean',
				default: true,
				description: 'Whether the model may call several tools in one turn',
			},
			{
				displayName: 'Strict Schemas',
				name: 'strict',
				type: 'boolean',
				default: false,
				description:
					'Whether to ask the API to follow each tool schema exactly (OpenAI’s strict mode, where the provider has one). Tools whose schema cannot be made strict are sent as they are and named in the trace.',
			},
			{
				displayName: 'Prompt Caching',
				name: 'promptCaching',
				type: 'boolean',
				default: true,
				description:
					'Whether to mark the prompt for the provider’s cache: Anthropic’s cache_control on the tools, system prompt and conversation so far; OpenAI’s prompt_cache_key from the chat session or the conversation. It changes no answer; cached tokens are counted in usage.',
			},
			{
				displayName: 'Reasoning Effort',
				name: 'reasoningEffort',
				type: 'options',
				default: 'medium',
				options: [
					{ name: 'Minimal', value: 'minimal' },
					{ name: 'Low', value: 'low' },
					{ name: 'Medium', value: 'medium' },
					{ name: 'High', value: 'high' },
				],
				description:
					'How much a reasoning model thinks before it answers: OpenAI’s reasoning effort, Gemini 3’s thinking level, Ollama’s think level; Anthropic and Gemini 2.5 take a budget derived from it (see Thinking Budget). The reasoning is in the trace, never in the answer.',
			},
			{
				displayName: 'Stream',
				name: 'stream',
				type: 'boolean',
				default: false,
				description:
					'Whether to receive the answer as a stream of chunks; the output is the same either way. In a chat, the text then appears as it is written.',
			},
			{
				displayName: 'Stream to Chat',
				name: 'streamToChat',
				type: 'boolean',
				default: true,
				description:
					'Whether to send the model’s text to the person when the workflow streams its answer (a Chat Trigger or Webhook whose Response Mode is Streaming). Turn off for a model whose text is not for the person.',
			},
			{
				displayName: 'Temperature',
				name: 'temperature',
				type: 'number',
				typeOptions: { minValue: 0, maxValue: 2, numberPrecision: 2 },
				default: 1,
			},
			{
				displayName: 'Thinking Budget (Tokens)',
				name: 'thinkingBudget',
				type: 'number',
				typeOptions: { minValue: 1024 },
				default: 8192,
				description:
					'Tokens the model may spend thinking: Anthropic’s budget_tokens (added to Max Tokens), Gemini 2.5’s thinkingBudget; OpenAI takes the effort it stands for. Reasoning is on when this or Reasoning Effort is set.',
			},
			{
				displayName: 'Timeout (Ms)',
				name: 'timeoutMs',
				type: 'number',
				typeOptions: { minValue: 1 },
				default: 120000,
				description:
					'How long to wait for the answer to start, and, when streaming, for each next chunk. Applies to each attempt.',
			},
		],
	},
	budgetProperty,
	...recordingProperties({
		name: 'replay',
		displayName: 'Replay',
		description:
			'Answer each round with the model response of a recorded trace instead of calling the API: the same items, no network, no credential used. Stops at the first step that differs from the recording.',
	}),
	traceOptionsProperty,
];
