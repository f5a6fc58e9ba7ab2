import type {
	ICredentialTestFunctions,
	IExecuteFunctions,
	ILoadOptionsFunctions,
	RequestHelperFunctions,
} from 'n8n-workflow';
import {
	outboundSend,
	type HttpRequest,
	type HttpResponse,
	type HttpSend,
} from '../../lib/model/http';

interface FullResponse {
	statusCode: number;
	headers: HttpResponse['headers'];
	body: unknown;
}

/** A node's model calls, at run time and in the editor: kept-alive connections under n8n's egress policy (where this n8n has one). */
export function nodeHttpSend(context: IExecuteFunctions | ILoadOptionsFunctions): HttpSend {
	const helpers = context.helpers as Partial<RequestHelperFunctions>;
	return outboundSend(helpers.getSecureEgressFilter?.());
}

/**
 * Credential tests, where n8n offers nodes only its older request helper. They make one short GET,
 * so the whole body is read at once; the abort signal is honoured by racing it.
 */
export function n8nLegacyHttpSend(helpers: ICredentialTestFunctions['helpers']): HttpSend {
	return async (request: HttpRequest) => {
		const answer = helpers.request({
			uri: request.url,
			method: request.method,
			headers: request.headers,
			...(request.body !== undefined && { body: request.body }),
			resolveWithFullResponse: true,
			simple: false,
		}) as Promise<FullResponse>;
		const aborted = new Promise<never>((_, reject) => {
			const fail = () => reject(request.signal.reason ?? new Error('aborted'));
			if (request.signal.aborted) fail();
			request.signal.addEventListener('abort', fail, { once: true });
		});
		const response = await Promise.race([answer, aborted]);
		const text =
			typeof response.body === 'string'
				? response.body
				: Buffer.isBuffer(response.body)
					? response.body.toString('utf8')
					: JSON.stringify(response.body ?? '');
		return { status: response.statusCode, headers: response.headers, body: [text] };
	};
}
