import type { Dialect } from '../types';
import { anthropicHttp } from './http';
import { buildAnthropicRequest } from './request';
import { parseAnthropicResponse } from './response';
import { createAnthropicStreamAssembler } from './stream';
import type { AnthropicMessage, AnthropicRequest, AnthropicStreamEvent } from './wire';

/** Anthropic's Messages API (POST /v1/messages), and the gateways that speak it. */
export type AnthropicDialect = Dialect<AnthropicRequest, AnthropicMessage, AnthropicStreamEvent>;

export const anthropicDialect: AnthropicDialect = {
	id: 'anthropic',
	http: anthropicHttp,
	buildRequest: buildAnthropicRequest,
	parseResponse: parseAnthropicResponse,
	createStreamAssembler: createAnthropicStreamAssembler,
};
