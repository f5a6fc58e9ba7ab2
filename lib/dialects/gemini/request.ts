import { answerToolFields, withAnswerTool } from '../answerTool';
import type { Conversation } from '../../conversation/types';
import { sampling, withBodyFields } from '../settings';
import { historyToolNames } from '../toolNames';
import type { ModelSettings, ToolChoice, ToolNameMap, VendorRequest } from '../types';
import { geminiFormat, geminiGeneration } from './format';
import { toGeminiContents } from './messages';
import { geminiToolNames } from './names';
import { toGeminiTools } from './tools';
import type { GeminiFunctionCallingConfig, GeminiRequest } from './wire';

/** The fields of a generateContent (the model and streaming are in its URL) body the node writes itself: Additional Body Fields may not set them. */
const GEMINI_OWNED = ['contents', 'systemInstruction', 'tools', 'toolConfig', 'cachedContent'];

/**
 * The generateContent body. The model and the stream choice are in the URL (http.ts), not here.
 * `parallelToolCalls` is not sent: Gemini has no such switch, the model decides how many calls a turn holds.
 */
export function buildGeminiRequest(
	conversation: Pick<Conversation, 'messages' | 'tools'>,
	settings: ModelSettings,
): VendorRequest<GeminiRequest> {
	const { messages } = conversation;
	const shape = geminiFormat(settings, conversation.tools);
	const tools = withAnswerTool(conversation.tools, shape.answer);
	const names = geminiToolNames(historyToolNames({ ...conversation, tools }));
	const vendorTools = toGeminiTools(tools, names, settings.strict);
	// Gemini 3 and later refuse unsigned function calls in a continued turn; older models get no stand-in.
	const body: GeminiRequest = toGeminiContents(messages, names, {
		signFunctionCalls: geminiGeneration(settings.model) >= 3,
	});
	if (tools.length > 0) {
		body.tools = vendorTools.tools;
		// The answer tool comes only beside other tools (format.ts): the node's Tool Choice holds.
		body.toolConfig = {
			functionCallingConfig: toGeminiToolChoice(settings.toolChoice, names),
		};
	}
	const generationConfig = { ...sampling(settings, 'maxOutputTokens'), ...shape.generationConfig };
	if (Object.keys(generationConfig).length > 0) body.generationConfig = generationConfig;
	return {
		body: withBodyFields(body, settings.bodyFields, GEMINI_OWNED),
		names,
		...answerToolFields(vendorTools.notStrict, shape.answer),
	};
}

function toGeminiToolChoice(choice: ToolChoice, names: ToolNameMap): GeminiFunctionCallingConfig {
	if (choice === 'auto') return { mode: 'AUTO' };
	if (choice === 'none') return { mode: 'NONE' };
	if (choice === 'required') return { mode: 'ANY' };
	return { mode: 'ANY', allowedFunctionNames: [names.toVendor(choice.name)] };
}
