import type { Conversation } from '../../conversation/types';
import { sampling, withBodyFields } from '../settings';
import { historyToolNames } from '../toolNames';
import { UnsupportedSettingError, type ModelSettings, type VendorRequest } from '../types';
import { ollamaFormat } from './format';
import { toOllamaMessages } from './messages';
import { ollamaToolNames } from './names';
import { toOllamaTools } from './tools';
import type { OllamaChatRequest } from './wire';

/** The fields of a /api/chat body the node writes itself: Additional Body Fields may not set them. */
const OLLAMA_OWNED = ['model', 'messages', 'tools', 'stream'];

export function buildOllamaRequest(
	conversation: Pick<Conversation, 'messages' | 'tools'>,
	settings: ModelSettings,
): VendorRequest<OllamaChatRequest> {
	const { messages, tools } = conversation;
	const names = ollamaToolNames(historyToolNames(conversation));
	const vendorTools = toOllamaTools(tools, names, settings.strict);
	const body: OllamaChatRequest = {
		model: settings.model,
		messages: toOllamaMessages(messages, names),
		stream: settings.stream,
	};
	// parallelToolCalls is not read: Ollama has no such switch, the model decides.
	if (tools.length > 0 && offersTools(settings)) body.tools = vendorTools.tools;
	Object.assign(body, ollamaFormat(settings));
	const options = sampling(settings, 'num_predict');
	if (Object.keys(options).length > 0) body.options = options;
	return {
		body: withBodyFields(body, settings.bodyFields, OLLAMA_OWNED),
		names,
		notStrict: vendorTools.notStrict,
	};
}

/**
 * Ollama has no tool choice (its OpenAI-compatible /v1 reads none either). "none" is kept by not
 * offering the tools, since the model cannot call what it is not offered; a required or named tool
 * cannot be forced, and saying so beats a model that quietly answers in text.
 */
function offersTools({ toolChoice }: ModelSettings): boolean {
	if (toolChoice === 'auto') return true;
	if (toolChoice === 'none') return false;
	const asked =
		toolChoice === 'required' ? 'a tool call ("required")' : `the tool "${toolChoice.name}"`;
	throw new UnsupportedSettingError(
		`Ollama's /api/chat has no tool choice: it cannot be made to call ${asked}. Set Tool Choice to "auto" (the model decides) or "none".`,
	);
}
