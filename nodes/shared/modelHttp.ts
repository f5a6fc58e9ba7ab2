import type {
	ICredentialTestFunctions,
	IExecuteFunctions,
	IHttpRequestOptions,
} from 'n8n-workflow';
import type { HttpRequest, HttpResponse, HttpSend } from '../../lib/model/http';

interface FullResponse {
	statusCode: number;
	headers: HttpResponse['headers'];
	body: unknown;
}

/**
 * Model calls through n8n's HTTP helper: n8n's proxy settings, egress policy and tracing apply as
 * they do to n8n's own nodes. Bodies come as streams and error statuses as answers, so the model
 * layer reads streamed events as they arrive and the vendor's error bodies in its own words.
 */
export function n8nHttpSend(helpers: Pick<IExecuteFunctions['helpers'], 'httpRequest'>): HttpSend {
	return async (request) => {
		const options: IHttpRequestOptions = {
			url: request.url,
			method: request.method,
			headers: request.headers,
			...(request.body !== undefined && { body: request.body }),
			encoding: 'stream',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			abortSignal: request.signal as IHttpRequestOptions['abortSignal'],
			// The model layer's own timer governs (its Timeout option may exceed n8n's default of 300 s).
			timeout: 0,
		};
		const response = (await helpers.httpRequest(options)) as FullResponse;
		return {
			status: response.statusCode,
			headers: response.headers,
			body: response.body as HttpResponse['body'],
		};
	};
}

/**
 * The same for credential tests, where n8n offers only its older request helper. Credential tests
 * make one short GET, so the whole body is read at once; the abort signal is honoured by racing it.
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
