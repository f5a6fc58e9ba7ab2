import {
	EXECUTE_WORKFLOW_TRIGGER_NODE_TYPE,
	type FieldType,
	type ILocalLoadOptionsFunctions,
	type IWorkflowNodeContext,
	type ResourceMapperField,
	type ResourceMapperFields,
} from 'n8n-workflow';
import type { TriggerFieldType } from '../../../lib/execution/workflowTools';

/** The editor's context as n8n-core makes it: it also reads the node's parameters. */
type EditorContext = ILocalLoadOptionsFunctions & {
	getCurrentNodeParameter?(name: string): unknown;
};

/**
 * The pseudo-field of a workflow whose trigger accepts all data, and of one that defines no
 * inputs: each workflow read has a field, so one never read is told apart from them.
 */
export const ACCEPTS_ALL_FIELD = '*';
export const NO_INPUTS_FIELD = '-';

/** A field's id in Trigger Inputs: its workflow's id, then its name. */
export const triggerFieldId = (workflowId: string, field: string) => `${workflowId}/${field}`;

/**
 * Trigger Inputs in the editor: for each workflow of Workflow Tools, the fields its 'When Executed
 * by Another Workflow' trigger defines, with their types, as n8n's Execute Workflow node reads
 * them. Only the editor can read another workflow (n8n gives a running node no way to), and it
 * shows a resource mapper only at the top of a node's parameters, so one mapper holds the fields
 * of every entry, each named after its workflow; List Tools offers what it holds. They are shown
 * read-only: the model gives the values.
 */
export async function getWorkflowToolInputs(
	this: ILocalLoadOptionsFunctions,
): Promise<ResourceMapperFields> {
	const context = this as EditorContext;
	const entries = context.getCurrentNodeParameter?.('workflowTools.tool');
	const ids = (Array.isArray(entries) ? entries : [])
		.map((entry: { workflowId?: unknown; inputSchemaFrom?: string }) =>
			entry.inputSchemaFrom === 'jsonSchema' ? '' : workflowIdOf(entry.workflowId),
		)
		.filter((id, index, all) => id !== '' && !id.startsWith('=') && all.indexOf(id) === index);
	const fields: ResourceMapperField[] = [];
	for (const id of ids) {
		const trigger = await triggerOf(context, id);
		if (!trigger) continue;
		const workflow = trigger.getWorkflow().name ?? id;
		const inputs = triggerFields(trigger);
		if (inputs === 'acceptsAll')
			fields.push(
				mapperField(
					id,
					ACCEPTS_ALL_FIELD,
					`${workflow}: any JSON object (its trigger accepts all data)`,
					'object',
				),
			);
		else if (inputs.length === 0)
			fields.push(mapperField(id, NO_INPUTS_FIELD, `${workflow}: no inputs`, 'object'));
		else
			fields.push(
				...inputs.map(({ name, type }) => mapperField(id, name, `${workflow}: ${name}`, type)),
			);
	}
	return fields.length > 0
		? { fields }
		: {
				fields,
				emptyFieldsNotice:
					"Choose the workflows of Workflow Tools from the list: their 'When Executed by Another Workflow' triggers define the inputs (a workflow chosen by an expression cannot be read here: give its Input Schema as JSON Schema)",
			};
}

/** The id a Workflow Tools entry's workflow has: picked from the list, or typed. */
function workflowIdOf(value: unknown): string {
	const id =
		typeof value === 'object' && value !== null ? (value as { value?: unknown }).value : value;
	return typeof id === 'string' || typeof id === 'number' ? String(id).trim() : '';
}

/**
 * The trigger of one workflow. n8n's reader looks up the node's `workflowId` (as on its Execute
 * Workflow node); here each entry's workflow is given to it in turn.
 */
async function triggerOf(
	context: EditorContext,
	workflowId: string,
): Promise<IWorkflowNodeContext | null> {
	const scoped = Object.create(context, {
		getCurrentNodeParameter: {
			value: (name: string) =>
				name === 'workflowId'
					? { __rl: true, mode: 'id', value: workflowId }
					: context.getCurrentNodeParameter?.(name),
		},
	}) as EditorContext;
	try {
		return await context.getWorkflowNodeContext.call(scoped, EXECUTE_WORKFLOW_TRIGGER_NODE_TYPE);
	} catch {
		// A workflow that is gone or not shared with this user: its entry fails at run time, saying so.
		return null;
	}
}

/** The trigger's fields by its Input Data Mode (fields, a JSON example, or all data; v1 takes all data). */
function triggerFields(
	trigger: IWorkflowNodeContext,
): Array<{ name: string; type: TriggerFieldType }> | 'acceptsAll' {
	const mode = trigger.getNodeParameter('inputSource', 0, 'passthrough') as string;
	if (mode === 'workflowInputs') {
		const values = trigger.getNodeParameter('workflowInputs.values', 0, []) as Array<{
			name?: string;
			type?: TriggerFieldType;
		}>;
		return values
			.filter((value) => typeof value.name === 'string' && value.name !== '')
			.map((value) => ({ name: value.name!, type: value.type ?? 'any' }));
	}
	if (mode === 'jsonExample') {
		const example = JSON.parse(String(trigger.getNodeParameter('jsonExample', 0, '{}'))) as unknown;
		if (typeof example !== 'object' || example === null || Array.isArray(example)) return [];
		return Object.entries(example).map(([name, value]) => ({ name, type: typeOfExample(value) }));
	}
	return 'acceptsAll';
}

/** The type n8n infers from a JSON example's value (null: any type). */
function typeOfExample(value: unknown): TriggerFieldType {
	if (value === null) return 'any';
	if (Array.isArray(value)) return 'array';
	const type = typeof value;
	return type === 'string' || type === 'number' || type === 'boolean' || type === 'object'
		? type
		: 'any';
}

function mapperField(
	workflowId: string,
	name: string,
	displayName: string,
	type: TriggerFieldType,
): ResourceMapperField {
	return {
		id: triggerFieldId(workflowId, name),
		displayName,
		required: false,
		defaultMatch: false,
		display: true,
		canBeUsedToMatch: false,
		readOnly: true,
		...(type !== 'any' && { type: type as FieldType }),
	};
}
