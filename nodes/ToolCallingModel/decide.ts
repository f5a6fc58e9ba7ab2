import {
	NodeApiError,
	NodeOperationError,
	type IExecuteFunctions,
	type INodeExecutionData,
	type JsonObject,
} from 'n8n-workflow';
import {
	openingMessages,
	parseToolDefinitions,
	withTools,
} from '../../lib/conversation/definitions';
import { readConversation } from '../../lib/conversation/read';
import type { Conversation } from '../../lib/conversation/types';
import { PendingCallsError, UnknownToolChoiceError } from '../../lib/decision/readiness';
import { AnswerFormatError } from '../../lib/decision/structuredAnswer';
import { takeModelTurn } from '../../lib/decision/takeTurn';
import { BodyFieldError } from '../../lib/dialects/settings';
import { UnsupportedSettingError } from '../../lib/dialects/types';
import { ModelApiError } from '../../lib/model/errors';
import { ReplayDriftError } from '../../lib/trace/recording';
import type { Routed } from '../shared/items';
import { itemParameter } from '../shared/parameters';
import { answersFromRecording } from '../shared/recordingOptions';
import { nodeRedactions } from '../shared/traceOptions';
import { promptCacheKey } from './cacheKey';
import { chatStreamFor } from './chat';
import type { ModelRoute } from '../../lib/decision/fallback';
import type { Dialect } from '../../lib/dialects/types';
import type { NodeRedaction } from '../shared/traceOptions';
import {
	fallbackEndpoints,
	liveEndpoints,
	recordedEndpoints,
	type ModelEndpoints,
} from './endpoints';
import { providerOf, type Provider } from './providers';
import { settingsOf, type NodeSettings } from './settings';

export const TOOL_CALLS_OUTPUT = 0;
export const FINAL_ANSWER_OUTPUT = 1;

/**
 * The decide step: per item, one model turn, leaving by Tool Calls or by Final Answer. The
 * credential is read once (the provider cannot come from an expression), and not at all when
 * every turn is replayed from a recording.
 */
export async function decide(context: IExecuteFunctions) {
	const nodeName = context.getNode().name;
	const provider = providerOf(context.getNodeParameter('provider', 0, 'openaiChat') as string);
	const replay = answersFromRecording(context, 'replay');
	const endpoints = replay ? recordedEndpoints(context) : await liveEndpoints(context, provider);
	const fallbackId = context.getNodeParameter('fallbackProvider', 0, 'none') as string;
	// A replay answers from the recording, whichever model answered the recorded turn.
	const fallbackProvider = fallbackId === 'none' || replay ? undefined : providerOf(fallbackId);
	const fallback =
		fallbackProvider &&
		(await fallbackEndpoints(context, { provider, endpoints }, fallbackProvider));
	const secrets = [...endpoints.secrets, ...(fallback?.secrets ?? [])];
	const redactionFor = nodeRedactions(context, secrets);

	const processItem = async (item: INodeExecutionData, itemIndex: number): Promise<Routed> => {
		const settings = settingsOf(context, itemIndex);
		const conversation = conversationFor(context, item, itemIndex);
		const redaction = redactionFor(itemIndex);
		const dialect = provider.dialect(settings.request);
		const cacheKey =
			settings.model.promptCaching &&
			promptCacheKey(dialect.id, endpoints.config?.baseUrl, {
				...conversation,
				session: item.json.session as { id?: unknown },
			});
		const { conversation: next, turn } = await takeModelTurn(conversation, {
			nodeName,
			dialect,
			settings: { ...settings.model, ...(cacheKey && { promptCacheKey: cacheKey }) },
			maxRounds: settings.maxRounds,
			maxRepairs: settings.maxRepairs,
			...settings.usage,
			endpoint: endpoints.forItem(itemIndex, dialect, settings, redaction),
			tracePolicy: redaction.trace,
			answer: chatStreamFor(context, itemIndex, settings, secrets),
			...(fallback &&
				fallbackProvider && {
					fallback: fallbackRoute(context, itemIndex, fallbackProvider, fallback, dialect, {
						settings,
						redaction,
					}),
				}),
		}).catch((error: unknown) => {
			throw nodeErrorOfTurn(context, error, itemIndex);
		});
		// An error a failed earlier turn left on the item (under continue-on-fail) is not this run's.
		const { error: _previousError, ...current } = next as Conversation & { error?: unknown };
		const leave = (output: number): Routed => ({
			output,
			item: { json: { ...current }, ...(item.binary && { binary: item.binary }) },
		});
		if (!turn) return leave(FINAL_ANSWER_OUTPUT);

		context.logger.debug(
			redaction.text(
				`${nodeName}: round ${turn.round} (${dialect.id}) finished with ${turn.finish}, ${turn.toolCalls.length} tool calls, in ${turn.durationMs} ms`,
			),
		);
		return leave(turn.toolCalls.length > 0 ? TOOL_CALLS_OUTPUT : FINAL_ANSWER_OUTPUT);
	};
	return { processItem, redactionFor };
}

/**
 * The fallback model for one item: the node's settings with the Fallback Model; Additional Body
 * Fields go only to a fallback of the same dialect, as another vendor may refuse them.
 */
function fallbackRoute(
	context: IExecuteFunctions,
	itemIndex: number,
	provider: Provider,
	endpoints: ModelEndpoints,
	primary: Dialect,
	item: { settings: NodeSettings; redaction: NodeRedaction },
): ModelRoute {
	const model = String(itemParameter(context, 'fallbackModel', itemIndex, '')).trim();
	if (model === '')
		throw new NodeOperationError(context.getNode(), 'Choose a Fallback Model', { itemIndex });
	const dialect = provider.dialect(item.settings.request);
	const { bodyFields, ...settings } = item.settings.model;
	return {
		dialect,
		settings: {
			...settings,
			model,
			...(dialect.id === primary.id && bodyFields && { bodyFields }),
		},
		endpoint: endpoints.forItem(itemIndex, dialect, item.settings, item.redaction),
	};
}

function conversationFor(
	context: IExecuteFunctions,
	item: INodeExecutionData,
	itemIndex: number,
): Conversation {
	try {
		const conversation = readConversation(item.json);
		const nodeTools = parseToolDefinitions(itemParameter(context, 'nodeTools', itemIndex, '[]'));
		if (conversation.messages.length > 0) return withTools(conversation, nodeTools);
		const system = messageText(itemParameter(context, 'systemMessage', itemIndex, ''), 'System');
		const user = messageText(itemParameter(context, 'userMessage', itemIndex, ''), 'User');
		return withTools({ ...conversation, messages: openingMessages(system, user) }, nodeTools);
	} catch (error) {
		throw new NodeOperationError(context.getNode(), (error as Error).message, { itemIndex });
	}
}

/**
 * A message parameter as text: an expression gives what it evaluates to (a number, nothing at all
 * for a field the item lacks), which is sent as its text; an object is refused, naming the field.
 */
function messageText(value: unknown, field: 'System' | 'User'): string {
	if (value === undefined || value === null) return '';
	if (typeof value === 'object')
		throw new Error(
			`The ${field} Message is not text but ${Array.isArray(value) ? 'a list' : 'an object'}: make its expression give text (JSON.stringify() writes an object as text)`,
		);
	return String(value);
}

/** A failed turn as the node reports it: the API's own answer, or the reason with what to do about it. */
function nodeErrorOfTurn(
	context: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
): NodeApiError | NodeOperationError {
	const node = context.getNode();
	// The recorded trace could not be read: the node's own error already says so.
	if (error instanceof NodeOperationError) return error;
	if (error instanceof ModelApiError) {
		return new NodeApiError(node, (error.body ?? { message: error.message }) as JsonObject, {
			itemIndex,
			message: error.message,
			httpCode: error.status === undefined ? undefined : String(error.status),
			description: `The model API answered ${error.status ?? 'nothing'} (${error.failure})`,
		});
	}
	if (error instanceof PendingCallsError) {
		const servers = error.servers.map((server) => `'${server}'`).join(', ');
		return new NodeOperationError(node, error.message, {
			itemIndex,
			description: `Run them with MCP Client (Execute Tool Calls) before the next model turn: the API refuses a turn with unanswered calls.${servers && ` An executor answers the calls of its own server's tools only (its Server Label, or else the name its server reports): these wait for ${servers}. Executors of several servers go one after another, not on parallel branches.`}`,
		});
	}
	if (error instanceof UnknownToolChoiceError) {
		return new NodeOperationError(node, error.message, {
			itemIndex,
			description: `Tools: ${error.tools.join(', ') || 'none'}`,
		});
	}
	return new NodeOperationError(node, error as Error, {
		itemIndex,
		...(error instanceof UnsupportedSettingError && {
			description: 'The provider has no such setting: change it, or pick another provider.',
		}),
		...(error instanceof AnswerFormatError && {
			description:
				'Loosen the Response Schema, raise Max Repairs, or tell the model in the system message what to answer.',
		}),
		...(error instanceof BodyFieldError && {
			description:
				'Additional Body Fields is for what the node does not model; it never overwrites what the node sends.',
		}),
		...(error instanceof ReplayDriftError && {
			description:
				'The conversation no longer matches the recorded run: a prompt, a tool, a setting or an earlier result changed.',
		}),
	});
}
