import type { PendingToolCall } from '../conversation/types';
import { createStreamRedactor } from '../json/streamRedaction';
import { createRedactor } from '../json/redact';

/**
 * Where a turn's text goes as it is written: n8n's chunk protocol (begin, item, end, error) as
 * the node wires it. Each call is awaited in order.
 */
export interface TextSink {
	begin(): Promise<void>;
	item(text: string): Promise<void>;
	end(): Promise<void>;
	error(message: string): Promise<void>;
}

export interface AnswerStreamOptions {
	/** Values never to send, in any form (the credential's key); a piece that may begin one is held back. */
	secrets: readonly string[];
	/** Say, one line each, which tools the model calls. */
	announceToolCalls: boolean;
}

/** A turn's text as streamed: pieces as they come, then the turn as it ended; each turn one message. */
export interface AnswerStream {
	/** A piece of the answer's text, as the vendor streamed it. */
	text(piece: string): void;
	/** The turn ended: what of its text did not stream goes now (all of it, unstreamed), then its calls. */
	finish(turn: { content: string | null; toolCalls: readonly PendingToolCall[] }): Promise<void>;
	/** The turn failed: an error chunk with the message, secrets hidden, after what was sent. */
	fail(message: string): Promise<void>;
}

/**
 * Streams one turn's text to a sink: secrets held back and hidden across pieces, nothing sent for
 * a turn without text (no empty message in the chat), the sink's calls kept in order although
 * pieces come in synchronously from the model's stream.
 */
export function createAnswerStream(sink: TextSink, options: AnswerStreamOptions): AnswerStream {
	const redactor = createStreamRedactor(options.secrets);
	let queue = Promise.resolve();
	let begun = false;
	let streamed = '';
	let failedToSend: unknown;
	const send = (text: string) => {
		if (text === '') return;
		queue = queue
			.then(async () => {
				if (!begun) {
					begun = true;
					await sink.begin();
				}
				await sink.item(text);
			})
			// A caller that went away must not fail the turn: the item still carries the answer.
			.catch((error: unknown) => {
				failedToSend ??= error;
			});
	};
	const close = async () => {
		send(redactor.end());
		await queue;
		if (begun && failedToSend === undefined) await sink.end().catch(() => undefined);
		// A turn after this one (the repair of an answer that broke the Response Format) is a message of its own.
		begun = false;
		streamed = '';
	};
	return {
		text(piece) {
			streamed += piece;
			send(redactor.push(piece));
		},
		async finish({ content, toolCalls }) {
			const whole = content ?? '';
			// A vendor's final text that does not go on from what streamed (it never differs in practice)
			// cannot be taken back: only text beyond the streamed part goes.
			if (whole.startsWith(streamed)) send(redactor.push(whole.slice(streamed.length)));
			if (options.announceToolCalls && toolCalls.length > 0) {
				const before = whole === '' ? '' : '\n\n';
				const lines = toolCalls.map((call) => `Calling ${call.name}…`).join('\n');
				send(redactor.push(`${before}${lines}\n\n`));
			}
			await close();
		},
		async fail(message) {
			send(redactor.end());
			await queue;
			const safe = createRedactor({ secrets: options.secrets }).values(message);
			await sink.error(safe).catch(() => undefined);
			if (begun) await sink.end().catch(() => undefined);
		},
	};
}
