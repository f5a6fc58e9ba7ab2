// Streaming latency: from the model's first text event to the first chunk an HTTP client receives,
// on loopback. A real HTTP server answers as n8n's webhook answers in Streaming response mode (the
// Webhook node's headers, flushed at once; then, as n8n's workflow-runner does in its sendChunk
// hook, `JSON.stringify(chunk) + '\n'` written for every chunk); the Tool Calling Model runs in
// n8n-core's engine in streaming mode, its chunks written to that response; the model is the
// tests' Chat Completions stand-in (test/support/standIn), streaming the answer in uneven pieces,
// a frame every FRAME_INTERVAL_MS as a model writes, with the time its first text event was
// handed to the socket (taken just before the write). Every run also checks that the `item` chunks joined are the item's `answer`, byte for
// byte. Stand-in, engine, server and client share one process and one clock.
import { createServer, request, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StructuredChunk } from 'n8n-workflow';
import { outputOf, runWorkflow } from '../test/support/engine';
import { chain } from '../test/support/mcpWorkflow';
import { modelNode, modelNodeTypes } from '../test/support/modelWorkflow';
import { reply, startStandIn } from '../test/support/standIn';
import { percentile, quietEngineLog } from './stats';

const RUNS = 200;
const WARM_UP = 20;
const FRAME_INTERVAL_MS = 5;
const TARGET_MS = 20;
const API_KEY = 'sk-bench-stream-0123456789abcdef';
const ANSWER =
	'The sum of 17 and 25 is 42. I asked the get-sum tool for it, and it agreed: 42, "exactly" — no rounding.';
/** The headers n8n's Webhook node sets in Streaming response mode before it flushes them. */
const WEBHOOK_STREAMING_HEADERS = {
	'Content-Type': 'application/json; charset=utf-8',
	'Transfer-Encoding': 'chunked',
	'Cache-Control': 'no-cache',
	Connection: 'keep-alive',
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether a Chat Completions SSE frame carries answer text. */
function carriesText(frame: string): boolean {
	if (!frame.startsWith('data: {')) return false;
	const chunk = JSON.parse(frame.slice('data: '.length)) as {
		choices?: Array<{ delta?: { content?: string | null } }>;
	};
	return (chunk.choices?.[0]?.delta?.content ?? '') !== '';
}

interface Received {
	firstItemAt?: number;
	lines: StructuredChunk[];
	headers: IncomingHttpHeaders;
}

/** POSTs to the server and reads its newline-delimited chunks, noting when the first `item` came. */
function callStreamingWebhook(url: string): Promise<Received> {
	return new Promise((resolve, reject) => {
		const received: Received = { lines: [], headers: {} };
		const call = request(url, { method: 'POST' }, (res) => {
			received.headers = res.headers;
			let pending = '';
			res.setEncoding('utf8');
			res.on('data', (data: string) => {
				pending += data;
				for (let end = pending.indexOf('\n'); end >= 0; end = pending.indexOf('\n')) {
					const chunk = JSON.parse(pending.slice(0, end)) as StructuredChunk;
					pending = pending.slice(end + 1);
					if (chunk.type === 'item' && received.firstItemAt === undefined)
						received.firstItemAt = performance.now();
					received.lines.push(chunk);
				}
			});
			res.on('end', () => resolve(received));
			res.on('error', reject);
		});
		call.on('error', reject);
		call.end('{"chatInput":"What is 17 + 25?"}');
	});
}

async function main() {
	const cleanUp = quietEngineLog();
	let firstTextAt: number | undefined;
	const api = await startStandIn('openaiChat', {
		apiKey: API_KEY,
		beforeStreamFrame: async (frame) => {
			await sleep(FRAME_INTERVAL_MS);
			if (firstTextAt === undefined && carriesText(frame)) firstTextAt = performance.now();
		},
	});
	const workflow = chain(
		modelNode('Model', {
			model: { __rl: true, mode: 'id', value: 'gpt-4.1-mini' },
			userMessage: 'What is 17 + 25?',
			options: { stream: true },
		}),
	);
	const nodeTypes = modelNodeTypes();
	const credentials = {
		openAiCompatibleApi: { baseUrl: api.baseURL, apiKey: API_KEY, headers: {} },
	};
	let answer: string | undefined;
	const server = createServer((req, res) => {
		req.resume();
		res.writeHead(200, WEBHOOK_STREAMING_HEADERS);
		res.flushHeaders();
		runWorkflow(workflow, {
			nodeTypes,
			credentials,
			checkOutput: () => {},
			// As n8n's workflow-runner: written and flushed, not awaited.
			onChunk: (chunk) => {
				res.write(`${JSON.stringify(chunk)}\n`);
			},
		})
			.then((result) => {
				if (result.status !== 'success')
					throw new Error(`The run failed: ${result.error?.message}`);
				answer = outputOf(result, 'Model', 1)[0]?.json.answer as string | undefined;
			})
			.catch((error: Error) =>
				res.write(`${JSON.stringify({ type: 'error', content: error.message })}\n`),
			)
			.finally(() => res.end());
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook/chat`;
	const latencies: number[] = [];
	try {
		for (let n = 0; n < WARM_UP + RUNS; n++) {
			firstTextAt = undefined;
			answer = undefined;
			api.script(reply.text(ANSWER));
			const received = await callStreamingWebhook(url);
			const items = received.lines.filter((chunk) => chunk.type === 'item');
			const joined = items.map((chunk) => chunk.content ?? '').join('');
			if (answer === undefined || !Buffer.from(joined).equals(Buffer.from(answer)))
				throw new Error(
					`Run ${n + 1}: the item chunks joined ${JSON.stringify(joined)} are not the item's answer ${JSON.stringify(answer)}`,
				);
			const types = received.lines.map((chunk) => chunk.type);
			if (types[0] !== 'begin' || types.at(-1) !== 'end' || items.length < 2)
				throw new Error(`Run ${n + 1}: chunks ${types.join(' ')}`);
			if (firstTextAt === undefined || received.firstItemAt === undefined)
				throw new Error(`Run ${n + 1}: no text event or no item chunk was seen`);
			if (n >= WARM_UP) latencies.push(received.firstItemAt - firstTextAt);
		}
	} finally {
		server.close();
		await api.close();
		cleanUp();
	}
	const [median, p95, max] = [50, 95, 100].map((p) => percentile(latencies, p));
	console.log(
		[
			`Streaming latency on loopback: the model stand-in's first text event written -> the first 'item' line read by an HTTP client`,
			`(Tool Calling Model in n8n-core's engine, streaming mode; chunks written as n8n's webhook writes them; ${RUNS} runs after ${WARM_UP}, a frame every ${FRAME_INTERVAL_MS} ms)`,
			`median ${median.toFixed(2)} ms   p95 ${p95.toFixed(2)} ms   max ${max.toFixed(2)} ms   target p95 ≤ ${TARGET_MS} ms: ${p95 <= TARGET_MS ? 'holds' : 'missed'}`,
			`the 'item' chunks joined equal the item's answer byte for byte in all ${WARM_UP + RUNS} runs (${Buffer.byteLength(ANSWER)} bytes)`,
		].join('\n'),
	);
}

main().catch((error: unknown) => {
	console.error(error);
	process.exitCode = 1;
});
