/**
 * What a workflow run lets out, read where n8n puts it: the output items and their traces, binary
 * data, the saved errors and run data, the errors handed to n8n's error reporter (which prints each
 * one's message and stack, down its causes), and n8n's own log output.
 */
import { Logger } from '@n8n/backend-common';
import { Container } from '@n8n/di';
import { ErrorReporter } from 'n8n-core';
import type { INodeExecutionData } from 'n8n-workflow';
import type { EngineRun } from './engine';

export interface Observed {
	run: EngineRun;
	/** n8n's log output, each line as printed and as the structured record it came from. */
	log: string[];
	/** The errors n8n's error reporter was handed, causes and stacks included. */
	reported: unknown[];
}

export const PLACES = [
	'item JSON',
	'trace',
	'binary data',
	'saved error',
	'thrown error',
	'saved run data',
	"n8n's log",
] as const;
export type Place = (typeof PLACES)[number];

type Transport = { log(info: object, next: () => void): void };

/**
 * Runs `work` while reading n8n's log output from its logger's own transports (set
 * N8N_LOG_LEVEL=debug before the logger is first made to read everything) and the errors handed
 * to its error reporter, which still reports them.
 */
export async function observed(work: () => Promise<EngineRun>): Promise<Observed> {
	const logger = Container.get(Logger) as unknown as {
		level: string;
		internalLogger: { transports: Transport[] };
	};
	if (logger.level !== process.env.N8N_LOG_LEVEL)
		throw new Error(`n8n's logger is at ${logger.level}, not ${process.env.N8N_LOG_LEVEL}`);
	const log: string[] = [];
	const transports = logger.internalLogger.transports;
	if (transports.length === 0) throw new Error("n8n's logger writes nowhere: nothing to read");
	const printing = transports.map((transport) => transport.log);
	for (const transport of transports)
		transport.log = (info, next) => {
			log.push(String((info as Record<symbol, unknown>)[Symbol.for('message')]));
			log.push(safeJson(info) ?? '');
			next();
		};
	const reporter = Container.get(ErrorReporter);
	const reported: unknown[] = [];
	const report = reporter.error.bind(reporter);
	reporter.error = (error, options) => {
		reported.push(error);
		report(error, options);
	};
	try {
		return { run: await work(), log, reported };
	} finally {
		reporter.error = ErrorReporter.prototype.error;
		transports.forEach((transport, index) => (transport.log = printing[index]));
	}
}

/** The bytes of each place a run writes to, binary data decoded. */
export function bytesByPlace({ run, log, reported }: Observed): Record<Place, string> {
	const items: INodeExecutionData[] = Object.values(run.nodes).flatMap((runs) =>
		runs.flatMap((nodeRun) => nodeRun.outputs.flat()),
	);
	const savedErrors = [
		run.error,
		...Object.values(run.nodes).flatMap((runs) => runs.map((nodeRun) => nodeRun.error)),
	];
	return {
		'item JSON': safeJson(items.map(({ json: { trace: _trace, ...rest } }) => rest)) ?? '',
		trace: safeJson(items.map((item) => item.json.trace ?? null)) ?? '',
		'binary data': items
			.flatMap((item) => Object.values(item.binary ?? {}))
			.map((binary) => Buffer.from(binary.data, 'base64').toString('latin1'))
			.join('\n'),
		'saved error': savedErrors.map((error) => errorText(error)).join('\n'),
		'thrown error': reported.map((error) => errorText(error)).join('\n'),
		'saved run data': safeJson(run.raw) ?? '',
		"n8n's log": log.join('\n'),
	};
}

/** Every byte a run let out, as one text. */
export function everythingWritten(observation: Observed): string {
	return Object.values(bytesByPlace(observation)).join('\n');
}

/** An error as text: every own property (enumerable or not, stack included), down its causes. */
export function errorText(error: unknown, depth = 0): string {
	if (!(error instanceof Error) || depth > 10) return safeJson(error ?? null) ?? '';
	return Object.getOwnPropertyNames(error)
		.map((name) => {
			const value = (error as unknown as Record<string, unknown>)[name];
			if (name === 'cause') return errorText(value, depth + 1);
			return typeof value === 'string' ? value : (safeJson(value) ?? '');
		})
		.join('\n');
}

/** JSON of anything, cycles cut. */
export function safeJson(value: unknown): string | undefined {
	const seen = new WeakSet();
	return JSON.stringify(value, (_key, inner: unknown) => {
		if (typeof inner !== 'object' || inner === null) return inner;
		if (seen.has(inner)) return '[seen]';
		seen.add(inner);
		return inner;
	});
}
