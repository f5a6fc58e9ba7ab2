import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import {
	createRedactor,
	DEFAULT_SECRET_KEYS,
	type Redactor,
	type Secrets,
} from '../../lib/json/redact';
import type { TracePolicy } from '../../lib/trace/entries';
import { commaList, isConstantParameter } from './parameters';

/** The trace and redaction settings both nodes offer. */
export const traceOptionsProperty: INodeProperties = {
	displayName: 'Trace and Redaction',
	name: 'traceOptions',
	type: 'collection',
	placeholder: 'Add Option',
	default: {},
	options: [
		{
			displayName: 'Trace Payloads',
			name: 'payloads',
			type: 'options',
			default: 'full',
			options: [
				{
					name: 'Full JSON',
					value: 'full',
					description:
						'Each step with the JSON it sent or received; of a model request only what earlier steps of the item do not hold',
				},
				{
					name: 'Full JSON, Every Request Whole',
					value: 'verbatim',
					description:
						'Each model request kept whole, every round, as sent (long conversations grow with the square of their rounds)',
				},
				{
					name: 'Metadata Only',
					value: 'metadata',
					description: 'Steps with names, statuses, times and sizes, without the JSON',
				},
			],
			description: 'What each trace entry keeps. Replay and dry run need full payloads.',
		},
		{
			displayName: 'Payload Limit (KB)',
			name: 'maxPayloadKb',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 256,
			description:
				'Payloads larger than this keep only their metadata, with the reason. A compact request counts by what it stores: what is new since the last request.',
		},
		{
			displayName: 'Redact Keys',
			name: 'redactKeys',
			type: 'string',
			default: DEFAULT_SECRET_KEYS.join(', '),
			description:
				'Keys whose values are hidden in traces, headers, errors and logs, matched on the words of a key (api_key matches apiKey and X-Api-Key). Credential secrets are hidden everywhere regardless.',
		},
		{
			displayName: 'Redact Paths',
			name: 'redactPaths',
			type: 'string',
			default: '',
			placeholder: 'e.g. payload.arguments.ssn, payload.messages.*.content',
			description:
				'Dotted paths in each trace entry whose values are hidden; * stands for any key or position. The conversation itself keeps them: the next round needs them.',
		},
	],
};

interface TraceOptions {
	payloads?: TracePolicy['payloads'];
	maxPayloadKb?: number;
	redactKeys?: string;
	redactPaths?: string;
}

/** How one node redacts: its trace policy, and the final pass over every item and error it writes. */
export interface NodeRedaction {
	/** Secret values, secret keys and the Redact Paths, applied to each trace entry. */
	trace: TracePolicy;
	/** Credential secrets and secret keys: values() for data such as a tool's result, all() for text. */
	redactor: Redactor;
	/** Credential secrets hidden by value: applied to every output item (what items share, searched once). */
	item<T>(json: T): T;
	/** Secret values, and secret keys in JSON text: for error messages and log lines. */
	text(message: string): string;
	/** Why the item's own options could not be read: the item fails with it, redacted by the defaults. */
	unreadable?: Error;
}

/**
 * The node's redaction of each item; `secrets` are the values of the credentials it uses (a
 * function: as they are now). Made once for every item when the options hold no expression (they
 * read the same for each), else once per item: the redactors and what they learn serve them all.
 */
export function nodeRedactions(
	context: IExecuteFunctions,
	secrets: Secrets,
): (itemIndex: number) => NodeRedaction {
	const perItem = !isConstantParameter(context, 'traceOptions');
	const made = new Map<number, NodeRedaction>();
	return (itemIndex) => {
		const index = perItem ? itemIndex : 0;
		let redaction = made.get(index);
		if (!redaction) {
			try {
				redaction = redactionOf(readOptions(context, index), secrets);
			} catch (error) {
				// Credential secrets are hidden whatever the options: the item's error must not show them.
				redaction = { ...redactionOf({}, secrets), unreadable: error as Error };
			}
			made.set(index, redaction);
		}
		return redaction;
	};
}

function readOptions(context: IExecuteFunctions, itemIndex: number): TraceOptions {
	return context.getNodeParameter('traceOptions', itemIndex, {}) as TraceOptions;
}

/** The keys whose values are hidden: Redact Keys' list, or the default ones when it is not set. */
export function secretKeysOf(redactKeys: unknown): readonly string[] {
	return redactKeys === undefined ? DEFAULT_SECRET_KEYS : commaList(redactKeys);
}

function redactionOf(options: TraceOptions, secrets: Secrets): NodeRedaction {
	const keys = secretKeysOf(options.redactKeys);
	const traceRedactor = createRedactor({ secrets, keys, paths: commaList(options.redactPaths) });
	const textRedactor = createRedactor({ secrets, keys });
	return {
		trace: {
			payloads: options.payloads ?? 'full',
			maxPayloadBytes: (options.maxPayloadKb ?? 256) * 1024,
			redactor: traceRedactor,
		},
		redactor: textRedactor,
		item: textRedactor.valuesOfItems(),
		text: (message) => textRedactor.all(message),
	};
}
