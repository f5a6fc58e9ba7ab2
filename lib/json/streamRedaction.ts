import { keptForRecentLists, matchersFor, REDACTED } from './redact';
import { secretBeginnings } from './secretForms';

// Compiled once per list of secrets: a node streams many turns with the same credential.
const beginningsOf = keptForRecentLists(secretBeginnings);

/**
 * Redaction of a text that is sent piece by piece as it is written (a model's answer streamed to a
 * person): a secret split across two pieces must never go out, so the end of what came so far is
 * held back for as long as it could be the beginning of a secret, and no longer. What goes out,
 * joined, is what redacting the whole text at once gives.
 */
export interface StreamRedactor {
	/** The piece added; returns what may be sent now, secrets hidden. */
	push(piece: string): string;
	/** The text ends: what was held back, secrets hidden. */
	end(): string;
}

export function createStreamRedactor(secrets: readonly string[]): StreamRedactor {
	// The whole forms are redaction's own (redact.ts), searched here with exec from lastIndex 0.
	const whole = matchersFor(secrets)?.text;
	const beginnings = beginningsOf(secrets);
	if (!whole || !beginnings) {
		return { push: (piece) => piece, end: () => '' };
	}
	const hidden = (text: string) => text.replace(whole, REDACTED);
	let held = '';
	return {
		push(piece) {
			const text = held + piece;
			let cut = text.search(beginnings);
			if (cut < 0) cut = text.length;
			// A whole secret that reaches past the cut (a secret whose end repeats its start) is held
			// with it. exec, not matchAll, which would compile the pattern anew at every piece.
			whole.lastIndex = 0;
			for (let match = whole.exec(text); match && match.index < cut; match = whole.exec(text)) {
				if (match.index + match[0].length > cut) {
					cut = match.index;
					break;
				}
			}
			held = text.slice(cut);
			return hidden(text.slice(0, cut));
		},
		end() {
			const rest = hidden(held);
			held = '';
			return rest;
		},
	};
}
