import { NodeOperationError, type IExecuteFunctions, type INodeExecutionData } from 'n8n-workflow';
import { redact } from '../../lib/json/redact';
import {
	describeConfig,
	secretsOf,
	sharedPool,
	type McpConnection,
	type McpServerConfig,
	type UseOptions,
} from '../../lib/mcp';
import type { BinaryStore } from '../../lib/execution/resultMessage';
import type { ListingToolServer } from '../../lib/execution/toolServer';
import { SchemaValidator } from '../../lib/schema/validator';
import { readConversation } from '../../lib/conversation/read';
import type { Conversation } from '../../lib/conversation/types';
import type { StepTiming } from '../../lib/trace/entries';
import { itemParameter, savedNode } from '../shared/parameters';
import { poolUseOf } from './operations/settings';

/** Compiled schemas are shared by every item and execution of this n8n process. */
export const validator = new SchemaValidator();

/** Runs `work` on the pooled connection; a server that cannot be reached fails the item with why. */
export async function withConnection<T>(
	context: IExecuteFunctions,
	config: McpServerConfig,
	work: (connection: McpConnection) => Promise<T>,
): Promise<T> {
	let connected = false;
	try {
		return await sharedPool.use(
			config,
			(connection) => {
				connected = true;
				return work(connection);
			},
			poolUseOf(context),
		);
	} catch (error) {
		if (connected) throw new NodeOperationError(context.getNode(), error as Error);
		// A server that fails to start may print the secret it was given (stderr is part of the message).
		const secrets = secretsOf(config);
		throw new NodeOperationError(
			context.getNode(),
			redact(`Could not connect to the MCP server (${describeConfig(config)})`, secrets),
			{ description: redact((error as Error).message, secrets) },
		);
	}
}

/** A server at hand for an item's calls, with the label it goes by when the node names none. */
export interface AnsweringServer extends ListingToolServer {
	name: string;
}

/**
 * The server as the executor sees it: each call takes the pooled connection afresh, so after a
 * crash the item's next calls run on a restarted server, as the connection-lost message promises.
 */
export function pooledServer(
	config: McpServerConfig,
	connection: McpConnection,
	poolUse: UseOptions,
): AnsweringServer {
	let last = connection;
	const use = <T>(work: (current: McpConnection) => Promise<T>) =>
		sharedPool.use(
			config,
			(current) => {
				last = current;
				return work(current);
			},
			poolUse,
		);
	return {
		name: connection.server.name,
		callTool: (name, args, options) => use((current) => current.callTool(name, args, options)),
		findTool: (name) => use((current) => current.findTool(name)),
		stderrTail: () => last.stderrTail(),
	};
}

/** The Server Label the node names, or else the server's own `name`. */
export function serverLabelOf(context: IExecuteFunctions, itemIndex: number, name: string): string {
	const label = (itemParameter(context, 'serverLabel', itemIndex, '') as string).trim();
	return label || name;
}

/** The item an operation writes: its own binary data kept (a copy, so new data stays on the output). */
export function outputItemFor(item: INodeExecutionData): INodeExecutionData {
	return { json: {}, ...(item.binary && { binary: { ...item.binary } }) };
}

/** When a step of an item's conversation started and how long it took, for its trace entry. */
function stepTiming(
	context: IExecuteFunctions,
	conversation: Conversation,
	startedAt: number,
): StepTiming {
	return {
		node: savedNode(context).name,
		round: conversation.rounds ?? 0,
		startedAt,
		durationMs: Date.now() - startedAt,
	};
}

/**
 * Keeps binary data a tool returned on the item, under a property named after the call. The
 * result it comes from was redacted on arrival (data holding a secret never gets here).
 */
export function binaryStoreFor(context: IExecuteFunctions, item: INodeExecutionData): BinaryStore {
	// Names taken by calls still storing theirs: the calls of one item may run at once.
	const reserved = new Set<string>();
	return async (data, mimeType, fileName) => {
		// Only an extension comes off: `functions.render:0_1` keeps what tells it apart.
		const stem = fileName.replace(/\.\w+$/, '').replace(/[^A-Za-z0-9_-]+/g, '_');
		const binary = (item.binary ??= {});
		let property = stem;
		for (let n = 2; binary[property] || reserved.has(property); n++) property = `${stem}_${n}`;
		reserved.add(property);
		try {
			binary[property] = await context.helpers.prepareBinaryData(data, fileName, mimeType);
		} finally {
			reserved.delete(property);
		}
		return property;
	};
}

/** What a one-request operation (Get Prompt, Read Resource) has for writing its item. */
export interface ServerAnswer<T> {
	conversation: Conversation;
	/** The item the operation writes (see outputItemFor). */
	output: INodeExecutionData;
	result: T;
	/** The Server Label, or the server's own name. */
	server: string;
	storeBinary: BinaryStore;
	/** The step's timing up to now, for its trace entry. */
	timing: () => StepTiming;
}

/**
 * Asks the server one request for an item: its conversation read first, then the answer with
 * what writing the item needs.
 */
export function serverAsker(context: IExecuteFunctions, config: McpServerConfig) {
	return async <T>(
		item: INodeExecutionData,
		itemIndex: number,
		request: (connection: McpConnection) => Promise<T>,
	): Promise<ServerAnswer<T>> => {
		const conversation = readConversation(item.json);
		const output = outputItemFor(item);
		const startedAt = Date.now();
		const { result, name } = await withConnection(context, config, async (connection) => ({
			result: await request(connection),
			name: connection.server.name,
		}));
		return {
			conversation,
			output,
			result,
			server: serverLabelOf(context, itemIndex, name),
			storeBinary: binaryStoreFor(context, output),
			timing: () => stepTiming(context, conversation, startedAt),
		};
	};
}
