/**
 * Vertex AI streams one function call in pieces when asked to (FunctionCallingConfig
 * `streamFunctionCallArguments`): the call's name with `willContinue: true`, then parts holding only
 * `partialArgs`, then a last part without `willContinue`. The events here are written by hand in
 * the shape of Vertex AI's REST reference (FunctionCall.partialArgs, PartialArg) and of streams
 * other projects recorded from it; none is a capture.
 */
import { geminiDialect } from '../../lib/dialects/gemini';
import { geminiToolNames } from '../../lib/dialects/gemini/names';
import { pathOf } from '../../lib/dialects/gemini/partialArgs';

const names = geminiToolNames(['get_weather', 'echo']);
const event = (parts: unknown[], finishReason?: string) => ({
	candidates: [
		{ content: { role: 'model', parts }, ...(finishReason && { finishReason }), index: 0 },
	],
});
const piece = (partialArgs: unknown[], willContinue = true) => ({
	functionCall: { partialArgs, ...(willContinue && { willContinue }) },
});

function assembled(events: unknown[]) {
	const assembler = geminiDialect.createStreamAssembler();
	const text = events.map((each) => assembler.push(each as never)).join('');
	expect(assembler.finished()).toBe(true);
	return { body: assembler.result(), text };
}

it('folds the pieces of one call into one call, strings continued, other values placed by path', () => {
	const { body, text } = assembled([
		event([{ functionCall: { name: 'get_weather', willContinue: true }, thoughtSignature: 'sig' }]),
		event([piece([{ jsonPath: '$.location', stringValue: 'Bos', willContinue: true }])]),
		event([piece([{ jsonPath: '$.location', stringValue: 'ton' }])]),
		event([
			piece([
				{ jsonPath: '$.days', numberValue: 3 },
				{ jsonPath: '$.alerts', boolValue: true },
			]),
		]),
		event([piece([{ jsonPath: "$.units['temp']", stringValue: 'C' }])]),
		event([
			piece([
				{ jsonPath: '$.hours[0]', numberValue: 9 },
				{ jsonPath: '$.hours[1]', numberValue: 12 },
				{ jsonPath: '$.note', nullValue: 'NULL_VALUE' },
			]),
		]),
		event([{ functionCall: {} }], 'STOP'),
	]);
	expect(text).toBe('');
	const turn = geminiDialect.parseResponse(body, names);
	expect(turn.toolCalls).toEqual([
		{
			id: 'call_0',
			name: 'get_weather',
			arguments: {
				location: 'Boston',
				days: 3,
				alerts: true,
				units: { temp: 'C' },
				hours: [9, 12],
				note: null,
			},
			rawArguments:
				'{"location":"Boston","days":3,"alerts":true,"units":{"temp":"C"},"hours":[9,12],"note":null}',
		},
	]);
	// The signature stays on the call's part, as a whole call carries it, to be sent back.
	expect(turn.message.vendorTurn?.content).toEqual([
		{
			functionCall: {
				name: 'get_weather',
				args: JSON.parse(turn.toolCalls[0].rawArguments),
			},
			thoughtSignature: 'sig',
		},
	]);
});

it('keeps two calls streamed one after the other apart, and a whole call beside them', () => {
	const { body } = assembled([
		event([{ functionCall: { name: 'echo', willContinue: true } }]),
		event([piece([{ jsonPath: '$.text', stringValue: 'hi' }], false)]),
		event([{ functionCall: { name: 'get_weather', args: { location: 'Oslo' } } }]),
		event([
			{
				functionCall: {
					name: 'echo',
					willContinue: true,
					partialArgs: [{ jsonPath: '$.text', stringValue: 'yo' }],
				},
			},
		]),
		event([{ functionCall: {} }], 'STOP'),
	]);
	const calls = geminiDialect.parseResponse(body, names).toolCalls;
	expect(calls.map((call) => [call.name, call.arguments])).toEqual([
		['echo', { text: 'hi' }],
		['get_weather', { location: 'Oslo' }],
		['echo', { text: 'yo' }],
	]);
});

it('fails the turn on a piece it cannot place, naming the piece', () => {
	const { body } = assembled([
		event([{ functionCall: { name: 'echo', willContinue: true } }]),
		event([piece([{ jsonPath: 'text', stringValue: 'hi' }])]),
		event([{ functionCall: {} }], 'STOP'),
	]);
	expect(() => geminiDialect.parseResponse(body, names)).toThrow(
		`The model API streamed pieces of the arguments of the call 'echo' that could not be placed: [{"jsonPath":"text","stringValue":"hi"}]`,
	);
});

it('fails the turn on a call whose stream ended before its last piece', () => {
	const { body } = assembled([
		event([{ functionCall: { name: 'echo', willContinue: true } }]),
		event([piece([{ jsonPath: '$.text', stringValue: 'h', willContinue: true }])], 'MAX_TOKENS'),
	]);
	expect(() => geminiDialect.parseResponse(body, names)).toThrow(
		/^The model API's stream ended in the middle of the call 'echo', before all its arguments came/,
	);
});

it('never lets a piece that continues no call out as a call of its own: it fails, named', () => {
	const { body } = assembled([
		event([piece([{ jsonPath: '$.text', stringValue: 'hi' }], false)], 'STOP'),
	]);
	expect(() => geminiDialect.parseResponse(body, names)).toThrow(
		/^The model API sent a tool call without a name \(call 1 of 1\)|could not be placed/,
	);
});

it('reads the JSON paths Vertex AI writes, and no others', () => {
	expect(pathOf('$.a.b[2]')).toEqual(['a', 'b', 2]);
	expect(pathOf(`$['a b']["c"]`)).toEqual(['a b', 'c']);
	for (const unread of ['a', '$', '$.', '$[x]', '$..a']) expect(pathOf(unread)).toBeUndefined();
});
