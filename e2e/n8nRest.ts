/** n8n's REST API and webhooks as the end-to-end phases call them. */
import { parse } from 'flatted';
import type { RunningN8n } from './phase.ts';

// n8n's replies are read as loose JSON and checked field by field.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type Loose = any;

export interface Reply {
	status: number;
	json: Loose;
	text: string;
	headers: Headers;
}

/** The owner e2e/check.ts sets up on the instance's first start. */
export const OWNER = { email: 'e2e@example.com', password: 'E2e-password-1' };

/** One HTTP request; its reply with the body as text and, when it parses, as JSON. */
export async function send(url: string, init: RequestInit, timeoutMs: number): Promise<Reply> {
	const response = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
	const text = await response.text();
	let json: Loose;
	try {
		json = JSON.parse(text);
	} catch {
		json = undefined;
	}
	return { status: response.status, json, text, headers: response.headers };
}

/** Joins the `name=value` parts of cookies, later ones replacing earlier ones of the same name. */
export function mergeCookies(...cookies: string[]): string {
	const byName = new Map<string, string>();
	for (const pair of cookies.flatMap((cookie) => cookie.split(/;\s*/))) {
		const at = pair.indexOf('=');
		if (at > 0) byName.set(pair.slice(0, at), pair);
	}
	return [...byName.values()].join('; ');
}

/** The `name=value` parts of a reply's Set-Cookie headers. */
export const cookiesOf = (reply: Reply) =>
	mergeCookies(...reply.headers.getSetCookie().map((cookie) => cookie.split(';')[0]));

/** Signs in as the owner; the cookie for later /rest calls. */
export async function signIn(baseUrl: string): Promise<string> {
	const reply = await send(
		`${baseUrl}/rest/login`,
		{
			method: 'POST',
			headers: { 'content-type': 'application/json' },
			body: JSON.stringify({ emailOrLdapLoginId: OWNER.email, password: OWNER.password }),
		},
		30_000,
	);
	if (reply.status !== 200)
		throw new Error(`sign-in: HTTP ${reply.status} ${reply.text.slice(0, 200)}`);
	return cookiesOf(reply);
}

/** A /rest call as the owner (`cookie` adds cookies for this call, such as n8n's OAuth binding). */
export function rest(n8n: RunningN8n, method: string, path: string, body?: unknown, cookie = '') {
	return send(
		n8n.baseUrl + path,
		{
			method,
			headers: {
				'content-type': 'application/json',
				cookie: mergeCookies(n8n.cookie, cookie),
			},
			body: body === undefined ? undefined : JSON.stringify(body),
		},
		60_000,
	);
}

/** A POST to a published workflow's webhook; a 404 (webhooks still registering) is retried briefly. */
export async function callWebhook(
	n8n: RunningN8n,
	path: string,
	body: unknown,
	timeoutMs: number,
): Promise<Reply> {
	for (let attempt = 0; ; attempt++) {
		const reply = await send(
			`${n8n.baseUrl}/webhook/${path}`,
			{
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(body),
			},
			timeoutMs,
		);
		if (reply.status !== 404 || attempt >= 20) return reply;
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
}

/** Creates a credential in the owner's project; its id. */
export async function createCredential(
	n8n: RunningN8n,
	name: string,
	type: string,
	data: Record<string, unknown>,
): Promise<string> {
	const reply = await rest(n8n, 'POST', '/rest/credentials', { name, type, data });
	const id = reply.json?.data?.id;
	if (reply.status !== 200 || typeof id !== 'string') {
		throw new Error(
			`creating credential ${name}: HTTP ${reply.status} ${reply.text.slice(0, 300)}`,
		);
	}
	return id;
}

/** Creates a workflow and publishes it (its webhooks go live); its id. */
export async function publishWorkflow(
	n8n: RunningN8n,
	workflow: { name: string; nodes: unknown[]; connections: unknown },
): Promise<string> {
	const created = await rest(n8n, 'POST', '/rest/workflows', {
		...workflow,
		settings: { executionOrder: 'v1' },
		active: false,
	});
	const { id, versionId } = created.json?.data ?? {};
	if (created.status !== 200 || typeof id !== 'string') {
		throw new Error(
			`creating workflow ${workflow.name}: HTTP ${created.status} ${created.text.slice(0, 300)}`,
		);
	}
	const published = await rest(n8n, 'POST', `/rest/workflows/${id}/activate`, { versionId });
	if (published.status !== 200) {
		throw new Error(
			`publishing workflow ${workflow.name}: HTTP ${published.status} ${published.text.slice(0, 300)}`,
		);
	}
	return id;
}

/** A workflow's executions, newest first, as the executions list shows them (id, status, mode, …). */
export async function executionsOf(n8n: RunningN8n, workflowId: string): Promise<Loose[]> {
	const filter = encodeURIComponent(JSON.stringify({ workflowId }));
	const list = await rest(n8n, 'GET', `/rest/executions?filter=${filter}`);
	return list.json?.data?.results ?? [];
}

/** The run data of an execution (n8n stores it in the `flatted` format). */
export async function executionData(n8n: RunningN8n, id: string): Promise<Loose> {
	const execution = await rest(n8n, 'GET', `/rest/executions/${id}`);
	const data = execution.json?.data?.data;
	return typeof data === 'string' ? parse(data) : undefined;
}

/** The run data of a workflow's latest execution. */
export async function lastExecution(n8n: RunningN8n, workflowId: string): Promise<Loose> {
	const [latest] = await executionsOf(n8n, workflowId);
	return latest === undefined ? undefined : executionData(n8n, latest.id);
}
