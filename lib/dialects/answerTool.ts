import type { Tool, VendorTurn } from '../conversation/types';
import { isRecord } from '../json/value';
import { answerSchema } from './settings';
import type { AnswerTool, NotStrict, ResponseFormat } from './types';

/**
 * Where a vendor takes no structured answer beside tools (Anthropic models before structured
 * outputs, Gemini before 3), the answer is asked for as one more tool whose arguments are the
 * answer, as other SDKs do; the decision step reads a call of it as the answer. A schema whose root
 * is no object is wrapped as its `answer` argument, as tool arguments are always an object.
 */
export const ANSWER_TOOL_NAME = 'final_answer';

export interface AnswerToolRequest {
	tool: Tool;
	answerTool: AnswerTool;
}

export function answerToolFor(format: ResponseFormat, tools: readonly Tool[]): AnswerToolRequest {
	let name = ANSWER_TOOL_NAME;
	for (let n = 2; tools.some((tool) => tool.name === name); n++) name = `${ANSWER_TOOL_NAME}_${n}`;
	const schema = answerSchema(format);
	const wrapped = schema.type !== 'object';
	return {
		tool: {
			name,
			description:
				'Give your final answer by calling this tool, its arguments being the answer. Call it once no other tool is needed, instead of answering in text.',
			inputSchema: wrapped
				? { type: 'object', properties: { answer: schema }, required: ['answer'] }
				: schema,
		},
		answerTool: { name, wrapped },
	};
}

/**
 * The vendor's own turn without its call of the answer tool (`vendorName`, the name the vendor
 * knows it by), for a turn whose other calls are run: the rest of it (Anthropic's thinking and its
 * signature, Gemini's thought signatures) must go back before those calls' results.
 */
export function withoutAnswerCall(turn: VendorTurn, vendorName: string): VendorTurn {
	const isAnswerCall = (piece: unknown) =>
		isRecord(piece) &&
		((piece.type === 'tool_use' && piece.name === vendorName) ||
			(isRecord(piece.functionCall) && piece.functionCall.name === vendorName));
	return { ...turn, content: turn.content.filter((piece) => !isAnswerCall(piece)) };
}

/** The tools a request offers: the conversation's, and the answer tool when one is asked for. */
export function withAnswerTool(tools: Tool[], answer?: AnswerToolRequest): Tool[] {
	return answer ? [...tools, answer.tool] : tools;
}

/** What the request tells the decision step of the answer tool: which it is; it is no tool not strict. */
export function answerToolFields(
	notStrict: NotStrict[],
	answer?: AnswerToolRequest,
): { notStrict: NotStrict[]; answerTool?: AnswerTool } {
	if (!answer) return { notStrict };
	return {
		notStrict: notStrict.filter((tool) => tool.name !== answer.answerTool.name),
		answerTool: answer.answerTool,
	};
}
