import type { ChatCompletionsStandIn } from './chatCompletionsStandIn';
import {
	startStandIn,
	type DialectId,
	type RequestBodies,
	type StandIn,
	type StandInOptions,
} from './standIn/index';

type PerTestOptions = StandInOptions & { expectScriptUsed?: boolean };

/**
 * A fresh stand-in endpoint for each test of the file, closed after it, speaking the given vendor's
 * API (OpenAI Chat Completions when none is named). The returned object always refers to the
 * current test's endpoint. With `expectScriptUsed`, a test that leaves scripted turns unused fails.
 */
export function standInForEachTest(options?: PerTestOptions): ChatCompletionsStandIn;
export function standInForEachTest<D extends DialectId>(
	dialect: D,
	options?: PerTestOptions,
): StandIn<RequestBodies[D]>;
export function standInForEachTest(
	dialectOrOptions: DialectId | PerTestOptions = {},
	maybeOptions: PerTestOptions = {},
): StandIn<unknown> {
	const [dialect, options] =
		typeof dialectOrOptions === 'string'
			? [dialectOrOptions, maybeOptions]
			: ['openaiChat' as const, dialectOrOptions];
	const { expectScriptUsed = false, ...standInOptions } = options;
	let current: StandIn<unknown> | undefined;
	beforeEach(async () => {
		current = await startStandIn(dialect, standInOptions);
	});
	afterEach(async () => {
		if (expectScriptUsed) expect(current!.remaining()).toBe(0);
		await current!.close();
	});
	return new Proxy({} as StandIn<unknown>, {
		get: (_target, key) => {
			const value = Reflect.get(current!, key);
			return typeof value === 'function' ? value.bind(current) : value;
		},
	});
}
