import type { Dialect } from '../types';
import { responsesHttp } from './http';
import { buildResponsesRequest, type ResponsesRequestOptions } from './request';
import { parseResponsesResponse } from './response';
import { createResponsesStreamAssembler } from './stream';
import type { ResponsesRequest, ResponsesResponse, ResponsesStreamEvent } from './wire';

/** OpenAI's Responses API, used statelessly (store:false): each request carries the whole conversation. */
export type ResponsesDialect = Dialect<ResponsesRequest, ResponsesResponse, ResponsesStreamEvent>;

export function createResponsesDialect(options: ResponsesRequestOptions = {}): ResponsesDialect {
	return {
		id: 'openaiResponses',
		http: responsesHttp,
		buildRequest: (conversation, settings) =>
			buildResponsesRequest(conversation, settings, options),
		parseResponse: parseResponsesResponse,
		createStreamAssembler: createResponsesStreamAssembler,
	};
}

export const responsesDialect: ResponsesDialect = createResponsesDialect();

export type { ResponsesRequestOptions };
