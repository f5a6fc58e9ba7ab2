import type { INodeProperties } from 'n8n-workflow';
import { DEFAULT_SECRET_KEYS } from '../../lib/json/redact';

const show = (operation: string[]) => ({ show: { operation } });

/** The Chat Trigger's default name: its output holds the session and the message. */
const CHAT_TRIGGER = "$('When chat message received').first().json";

export const properties: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		default: 'load',
		options: [
			{
				name: 'Load',
				value: 'load',
				action: 'Continue a chat session',
				description:
					"The session's stored turns (rows a Data table node read) and the new message, as the conversation to continue",
			},
			{
				name: 'Save',
				value: 'save',
				action: 'Store what this message added',
				description:
					'The turn this message added (the message, the calls, their results, the answer) as a row for a Data table node to insert',
			},
		],
	},
	{
		displayName:
			'Put a Data table node before this one: Get rows whose sessionId is this session, Return All on, and in its Settings Always Output Data on (a new session has no rows)',
		name: 'loadNotice',
		type: 'notice',
		default: '',
		displayOptions: show(['load']),
	},
	{
		displayName: 'Session ID',
		name: 'sessionId',
		type: 'string',
		default: `={{ ${CHAT_TRIGGER}.sessionId }}`,
		required: true,
		displayOptions: show(['load']),
		description:
			'Which conversation this message continues: by default the Chat Trigger’s session (change the node name in the expression if you renamed the trigger)',
	},
	{
		displayName: 'Message',
		name: 'message',
		type: 'string',
		typeOptions: { rows: 2 },
		default: `={{ ${CHAT_TRIGGER}.chatInput }}`,
		required: true,
		displayOptions: show(['load']),
		description: 'The person’s new message: by default the Chat Trigger’s',
	},
	{
		displayName: 'System Message',
		name: 'systemMessage',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		displayOptions: show(['load']),
		description:
			'Instructions sent first with every message of the session; not stored, so a change applies to sessions already under way',
	},
	{
		displayName: 'Context Budget',
		name: 'budget',
		type: 'collection',
		placeholder: 'Add Limit',
		default: {},
		displayOptions: show(['load']),
		options: [
			{
				displayName: 'Max Messages',
				name: 'maxMessages',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				description:
					'The most messages sent to the model, the new one included; the oldest whole turns are left out first. 0 is no limit.',
			},
			{
				displayName: 'Max Tokens (Estimated)',
				name: 'maxTokens',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 32000,
				description:
					'The most tokens the messages may take, estimated as one per 4 characters; the oldest whole turns are left out first. 0 is no limit.',
			},
			{
				displayName: 'Shorten Earlier Tool Results Over (Characters)',
				name: 'shortenToolResultsOver',
				type: 'number',
				typeOptions: { minValue: 0 },
				default: 0,
				description:
					'A tool result of an earlier message longer than this is replaced by a line saying it was left out. 0 keeps every result whole.',
			},
		],
	},
	{
		displayName:
			'Put a Data table node after this one: Insert, with its columns mapped automatically (sessionId, turn, messages)',
		name: 'saveNotice',
		type: 'notice',
		default: '',
		displayOptions: show(['save']),
	},
	{
		displayName: 'Options',
		name: 'saveOptions',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: show(['save']),
		options: [
			{
				displayName: 'Redact Keys',
				name: 'redactKeys',
				type: 'string',
				default: DEFAULT_SECRET_KEYS.join(', '),
				description:
					'Keys whose values are hidden in what is stored (in tool arguments and results given as JSON), matched on the words of a key as in traces',
			},
			{
				displayName: 'Show Usage in Chat',
				name: 'showUsage',
				type: 'boolean',
				default: false,
				description:
					'Whether to tell the person, in a message of its own after the answer, what the answer cost and the session so far (model and tool calls, tokens, dollars) when the workflow streams its answer',
			},
		],
	},
];
