import { startChatCompletionsStandIn, type ChatCompletionsStandIn, type StandInOptions } from './chatCompletionsStandIn';

/**
 * A fresh stand-in endpoint for each test of the file, closed after it. The returned object
 * always refers to the current test's endpoint. With `expectScriptUsed`, a test that leaves
 * scripted turns unused fails.
 */
export function standInForEachTest(options: StandInOptions & { expectScriptUsed?: boolean } = {}): ChatCompletionsStandIn {
	const { expectScriptUsed = false, ...standInOptions } = options;
	let current: ChatCompletionsStandIn | undefined;
	beforeEach(async () => {
		current = await startChatCompletionsStandIn(standInOptions);
	});
	afterEach(async () => {
		if (expectScriptUsed) expect(current!.remaining()).toBe(0);
		await current!.close();
	});
	return new Proxy({} as ChatCompletionsStandIn, {
		get: (_target, key) => {
			const value = Reflect.get(current!, key);
			return typeof value === 'function' ? value.bind(current) : value;
		},
	});
}
