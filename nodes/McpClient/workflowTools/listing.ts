import { NodeOperationError, type IDataObject, type IExecuteFunctions } from 'n8n-workflow';
import type { ListedTool } from '../../../lib/conversation/tools';
import type { JsonSchema, WorkflowReference } from '../../../lib/conversation/types';
import { isRecord } from '../../../lib/json/value';
import {
	ACCEPTS_ALL_NOTE,
	triggerInputSchema,
	workflowToolName,
} from '../../../lib/execution/workflowTools';
import { isConstantParameter } from '../../shared/parameters';
import { ACCEPTS_ALL_FIELD, NO_INPUTS_FIELD, triggerFieldId } from './triggerInputs';

/** The label workflow tools carry when the node names none, and the "server" their listing names. */
export const WORKFLOWS_LABEL = 'workflows';

/** A Workflow Tools entry as n8n gives it. */
interface WorkflowToolEntry {
	workflowId?: unknown;
	toolName?: string;
	toolDescription?: string;
	inputSchemaFrom?: 'trigger' | 'jsonSchema';
	jsonSchema?: unknown;
	readOnly?: boolean;
}

/**
 * The tools the node's Workflow Tools offer for one item (read once when they hold no expression):
 * each named and described as given, else after its workflow, with its input schema from the
 * trigger's fields as the editor read them, or the JSON Schema given.
 */
export function workflowToolsOf(context: IExecuteFunctions) {
	let constant: ListedTool[] | undefined;
	return (itemIndex: number): ListedTool[] => {
		if (constant) return constant;
		const entries = context.getNodeParameter('workflowTools.tool', itemIndex, []) as IDataObject[];
		const fail = (message: string): never => {
			throw new NodeOperationError(context.getNode(), message, { itemIndex });
		};
		if (entries.length === 0)
			fail('Workflow Tools holds no workflow: add the workflows to offer as tools');
		const read = context.getNodeParameter('workflowInputs.schema', itemIndex, []) as ReadField[];
		const tools = entries.map((entry, index) =>
			workflowTool(entry as WorkflowToolEntry, index + 1, read, fail),
		);
		const seen = new Set<string>();
		for (const tool of tools) {
			if (seen.has(tool.name))
				fail(
					`Two workflow tools are named '${tool.name}': give one of them another Tool Name, so the model can tell them apart`,
				);
			seen.add(tool.name);
		}
		if (isConstantParameter(context, 'workflowTools')) constant = tools;
		return tools;
	};
}

/** Fails the item with a message that names the entry and what to change. */
type Fail = (message: string) => never;

/** A field of Trigger Inputs, as the editor saved it. */
interface ReadField {
	id?: string;
	type?: string;
	removed?: boolean;
}

function workflowTool(
	entry: WorkflowToolEntry,
	position: number,
	read: ReadField[],
	fail: Fail,
): ListedTool {
	const workflow = workflowOf(entry.workflowId, position, fail);
	const name = entry.toolName?.trim() || workflowToolName(workflow.name, workflow.id);
	const called = `Workflow tool ${position} ('${name}')`;
	const { inputSchema, note } =
		entry.inputSchemaFrom === 'jsonSchema'
			? { inputSchema: givenSchema(entry.jsonSchema, called, fail), note: undefined }
			: triggerSchema(read, called, workflow, fail);
	const described =
		entry.toolDescription?.trim() || `Runs the n8n workflow '${workflow.name ?? workflow.id}'.`;
	return {
		name,
		description: note ? `${described}\n${note}` : described,
		inputSchema,
		...(entry.readOnly && { annotations: { readOnlyHint: true } }),
		workflow,
	};
}

/** The workflow an entry names: picked from the list (with its name), or an ID, typed or from an expression. */
function workflowOf(value: unknown, position: number, fail: Fail): WorkflowReference {
	const locator = isRecord(value) ? value : { value };
	const id = locator.value === undefined || locator.value === null ? '' : String(locator.value);
	if (id.trim() === '')
		fail(`Workflow tool ${position} names no workflow: pick one from the list or give its ID`);
	const name = typeof locator.cachedResultName === 'string' ? locator.cachedResultName : undefined;
	return { id: id.trim(), ...(name && { name }) };
}

function givenSchema(value: unknown, called: string, fail: Fail): JsonSchema {
	let schema = value;
	if (typeof value === 'string') {
		try {
			schema = JSON.parse(value);
		} catch (error) {
			return fail(`${called}: its Input Schema (JSON) is not JSON (${(error as Error).message})`);
		}
	}
	if (!isRecord(schema) || (schema.type !== undefined && schema.type !== 'object'))
		fail(
			`${called}: its Input Schema (JSON) must be a JSON Schema of an object ({"type": "object", "properties": {…}}): the arguments become the JSON of the item the workflow gets`,
		);
	return { type: 'object', ...schema } as JsonSchema;
}

/**
 * The schema of the workflow's trigger fields as the editor read them into Trigger Inputs: a
 * workflow never read there (the node was not opened since it was chosen, or it is chosen by an
 * expression) cannot be guessed.
 */
function triggerSchema(
	read: ReadField[],
	called: string,
	workflow: WorkflowReference,
	fail: Fail,
): { inputSchema: JsonSchema; note?: string } {
	const prefix = triggerFieldId(workflow.id, '');
	const fields = read.filter((field) => field.id?.startsWith(prefix));
	if (fields.length === 0)
		return fail(
			`${called}: the inputs of workflow '${workflow.name ?? workflow.id}' were not read from its trigger. Open this node in the editor with the workflow chosen from the list (it reads the triggers into Trigger Inputs), or set Input Schema From to JSON Schema`,
		);
	const names = fields
		.filter((field) => !field.removed)
		.map((field) => ({ name: String(field.id).slice(prefix.length), type: field.type }));
	if (names.some(({ name }) => name === ACCEPTS_ALL_FIELD))
		return { inputSchema: triggerInputSchema({ acceptsAll: true }), note: ACCEPTS_ALL_NOTE };
	return {
		inputSchema: triggerInputSchema({
			acceptsAll: false,
			fields: names.filter(({ name }) => name !== NO_INPUTS_FIELD),
		}),
	};
}
