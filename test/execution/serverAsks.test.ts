import { describeServerAsks } from '../../lib/execution/serverAsks';
import type { ServerRequestEvent } from '../../lib/mcp';

const UNTIED = 'Several calls were running and the request could not be tied to one of them.';
const refusal =
	'The elicitation/create request is 11.0 MB, more than the 10.0 MB this client reads (Max Result Size); it was refused unread';

const events: Array<[string, Omit<ServerRequestEvent, 'tiedBy'>]> = [
	[
		'a request too large to read',
		{ method: 'elicitation/create', params: undefined, requestBytes: 11_534_500, error: refusal },
	],
	['a sampling request', { method: 'sampling/createMessage', params: {}, error: 'no sampling' }],
	[
		'an elicitation',
		{
			method: 'elicitation/create',
			params: {
				mode: 'form',
				message: 'Name?',
				requestedSchema: { type: 'object', properties: {} },
			},
			answer: { action: 'decline' },
		},
	],
];

describe.each(events)('the tool message about %s', (_, event) => {
	it('says, when several calls ran, that it may have been another call’s', () => {
		const [line] = describeServerAsks([{ at: 0, event: { ...event, tiedBy: 'unknown' } }]);
		expect(line).toContain(UNTIED);
	});

	it('says nothing of other calls when it was tied to this one', () => {
		for (const tiedBy of ['stream', 'only-call'] as const) {
			const [line] = describeServerAsks([{ at: 0, event: { ...event, tiedBy } }]);
			expect(line).not.toContain(UNTIED);
		}
	});
});
