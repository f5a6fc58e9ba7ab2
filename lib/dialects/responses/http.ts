import type { DialectHttp } from '../types';
import { isRecord } from '../../json/value';
import { openaiErrorMessage, openaiHttp } from '../openai/http';

/**
 * OpenAI's error bodies, and the Responses stream's `error` event, which holds the error at its
 * top (`{type: "error", code, message}`), not under `error`.
 */
export function responsesErrorMessage(body: unknown): string | undefined {
	if (isRecord(body) && body.type === 'error' && typeof body.message === 'string')
		return typeof body.code === 'string' ? `${body.message} (${body.code})` : body.message;
	return openaiErrorMessage(body);
}

/** POST {baseUrl}/responses, with OpenAI's headers, error bodies and model list. */
export const responsesHttp: DialectHttp = {
	...openaiHttp('/responses'),
	errorMessage: responsesErrorMessage,
};
