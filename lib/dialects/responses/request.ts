import type { Conversation } from '../../conversation/types';
import { sampling, withBodyFields } from '../settings';
import { historyToolNames } from '../toolNames';
import type { ModelSettings, ToolChoice, ToolNameMap, VendorRequest } from '../types';
import { withJsonInstruction } from '../openai/format';
import { responsesFormat } from './format';
import { toResponsesInput } from './messages';
import { responsesToolNames } from './names';
import { toResponsesTools } from './tools';
import type { ResponsesRequest, ResponsesToolChoice } from './wire';

/** The fields of a Responses body the node writes itself: Additional Body Fields may not set them. */
const RESPONSES_OWNED = [
	'model',
	'input',
	'instructions',
	'tools',
	'tool_choice',
	'stream',
	'store',
	'previous_response_id',
	'conversation',
];

export interface ResponsesRequestOptions {
	/**
	 * Ask for reasoning items with their encrypted content (`include: ["reasoning.encrypted_content"]`).
	 * Under store:false that is the only way a reasoning model's reasoning reaches its next turn; but
	 * models without reasoning (gpt-4o, gpt-4.1) refuse the request with a 400, so it is off by default.
	 */
	encryptedReasoning?: boolean;
}

export function buildResponsesRequest(
	conversation: Pick<Conversation, 'messages' | 'tools'>,
	settings: ModelSettings,
	options: ResponsesRequestOptions = {},
): VendorRequest<ResponsesRequest> {
	const { messages, tools } = conversation;
	const names = responsesToolNames(historyToolNames(conversation));
	const vendorTools = toResponsesTools(tools, names, settings.strict);
	const { instructions, input } = toResponsesInput(
		withJsonInstruction(messages, settings.responseFormat),
		names,
	);
	const body: ResponsesRequest = {
		model: settings.model,
		...(instructions !== undefined && { instructions }),
		input,
		stream: settings.stream,
		// The whole conversation travels on the n8n item and is sent each turn, so nothing needs
		// keeping at OpenAI, which stores every response unless told not to.
		store: false,
	};
	if (tools.length > 0) {
		body.tools = vendorTools.tools;
		body.tool_choice = toResponsesToolChoice(settings.toolChoice, names);
		if (settings.parallelToolCalls !== undefined)
			body.parallel_tool_calls = settings.parallelToolCalls;
	}
	Object.assign(body, sampling(settings, 'max_output_tokens'));
	Object.assign(body, responsesFormat(settings));
	// Under store:false the reasoning reaches the next round only as encrypted content.
	if (options.encryptedReasoning || settings.reasoning)
		body.include = ['reasoning.encrypted_content'];
	return {
		body: withBodyFields(body, settings.bodyFields, RESPONSES_OWNED),
		names,
		notStrict: vendorTools.notStrict,
	};
}

function toResponsesToolChoice(choice: ToolChoice, names: ToolNameMap): ResponsesToolChoice {
	if (typeof choice === 'string') return choice;
	return { type: 'function', name: names.toVendor(choice.name) };
}
