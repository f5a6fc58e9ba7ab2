import type { IExecuteFunctions } from 'n8n-workflow';
import type { Conversation } from '../../lib/conversation/types';
import { recordedToolServer } from '../../lib/execution/toolServer';
import { redact } from '../../lib/json/redact';
import { secretsOf, type InvalidTool, type McpServerConfig, type McpTool } from '../../lib/mcp';
import { recordingReader } from '../shared/recordingOptions';
import type { NodeRedaction } from '../shared/traceOptions';
import { callSettingsOf, poolUseOf } from './operations/settings';
import { pooledServer, withConnection, type AnsweringServer } from './server';

/** The item an answer is for: a recording answers by its round, compared after its redaction. */
export interface SourceItem {
	itemIndex: number;
	conversation: Conversation;
	redaction: NodeRedaction;
}

/** A server's tools and who listed them, as List Tools traces them. */
export interface ServerListing {
	server: Record<string, unknown>;
	tools: McpTool[];
	/** Tools the server listed with definitions that break the MCP schema: left out, named. */
	invalid: InvalidTool[];
	/** The label the tools get when the node names none. */
	name: string;
	durationMs: number;
}

/** What answers List Tools and Execute Tool Calls, chosen once per execution: the server, or recordings. */
export interface ServerSource {
	/** The values of the credential in use, as they are now, redacted in everything the node writes. */
	readonly secrets: () => readonly string[];
	/** True when recordings answer: the trace says so. */
	readonly replayed: boolean;
	/** Every page of the server's tools, asked afresh (of a live server, once per execution). */
	listing(item: SourceItem): Promise<ServerListing>;
	/** Runs `work` with the server that answers the item's calls. */
	use<T>(item: SourceItem, work: (server: AnsweringServer) => Promise<T>): Promise<T>;
}

/** The MCP server of the credential, over the shared pool; a server that cannot be reached fails the item with why. */
export function liveServers(context: IExecuteFunctions, config: McpServerConfig): ServerSource {
	let listing: Promise<ServerListing> | undefined;
	const listOnce = () => {
		const started = Date.now();
		return withConnection(context, config, async (connection) => {
			const { timeoutMs } = callSettingsOf(context);
			const { tools, invalid } = await connection.listing({ fresh: true, timeoutMs });
			if (invalid.length > 0) {
				const warning = redact(
					invalidToolsWarning(connection.server.name, invalid),
					secretsOf(config),
				);
				context.logger.warn(`${context.getNode().name}: ${warning}`);
				context.addExecutionHints({ message: warning, type: 'warning', location: 'outputPane' });
			}
			return {
				server: { ...connection.server },
				tools,
				invalid,
				name: connection.server.name,
				durationMs: Date.now() - started,
			};
		});
	};
	const poolUse = poolUseOf(context);
	return {
		secrets: () => secretsOf(config),
		replayed: false,
		listing: () => (listing ??= listOnce()),
		use: (_item, work) =>
			withConnection(context, config, (connection) =>
				work(pooledServer(config, connection, poolUse)),
			),
	};
}

/**
 * Dry Run: each item's recorded trace answers as the server did then; arguments are still
 * checked, and no server starts. A recorded server goes by the label of the tools the item
 * calls, as the recording has no connection to name it.
 */
export function recordedServers(context: IExecuteFunctions): ServerSource {
	const recordingOf = recordingReader(context, 'dryRun');
	const recordingFor = ({ itemIndex, redaction }: SourceItem) =>
		recordingOf(itemIndex, redaction.trace.redactor);
	const placeOf = ({ conversation }: SourceItem) => ({
		round: conversation.rounds ?? 0,
		trace: conversation.trace,
	});
	return {
		secrets: () => [],
		replayed: true,
		listing: async (item) => {
			const { server, tools } = (await recordingFor(item)).toolsList(placeOf(item));
			const name = String(server.label ?? server.name);
			return { server, tools, invalid: [], name, durationMs: 0 };
		},
		use: async (item, work) => {
			const server = recordedToolServer(await recordingFor(item), placeOf(item));
			return work({ ...server, name: calledServer(item.conversation) });
		},
	};
}

/** What List Tools tells the workflow's author when a server lists tools it cannot offer. */
export function invalidToolsWarning(server: string, invalid: InvalidTool[]): string {
	const named = invalid.map((tool) => `${tool.name} (${tool.reason})`).join('; ');
	return `Server '${server}' listed ${invalid.length} tool(s) whose definition breaks the MCP schema; they were left out and cannot be called: ${named}`;
}

/** The server label of the tools the item's pending calls name. */
function calledServer(conversation: Conversation): string {
	const called = conversation.tools.find(
		(tool) =>
			tool.server !== undefined && conversation.toolCalls.some((call) => call.name === tool.name),
	);
	return called?.server ?? '';
}
