/**
 * Local stand-ins for the model APIs the Tool Calling Model node calls (OpenAI Chat Completions and
 * Responses, Anthropic Messages, Gemini generateContent, Ollama /api/chat), because no model API
 * is reachable where tests run. One scripted conversation (turns.ts) can be served in any vendor's
 * wire format; see server.ts for the core and each wire module for the references it follows.
 */
export { startStandIn, type RecordedRequest, type StandIn, type StandInOptions } from './server';
export { DIALECT_IDS, type DialectId, type RequestBodies } from './dialects';
export {
	DEFAULT_USAGE,
	reply,
	type AnswerOptions,
	type AnswerTurn,
	type CutTurn,
	type ErrorFields,
	type ErrorTurn,
	type FinishReason,
	type RawTurn,
	type ScriptedToolCall,
	type Turn,
} from './turns';
