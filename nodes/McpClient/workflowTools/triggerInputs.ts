import {
	EXECUTE_WORKFLOW_TRIGGER_NODE_TYPE,
	type FieldType,
	type ILocalLoadOptionsFunctions,
	type IWorkflowNodeContext,
	type ResourceMapperField,
	type ResourceMapperFields,
} from 'n8n-workflow';
import type { TriggerFieldType } from '../../../lib/execution/workflowTools';

/** The editor's context as n8n-core makes it: it also reads the node's parameters at a path. */
type EditorContext = ILocalLoadOptionsFunctions & {
	getCurrentNodeParameter?(name: string): unknown;
};

/**
 * Trigger Inputs in the editor: the fields the chosen workflow's 'When Executed by Another
 * Workflow' trigger defines, with their types, as n8n's Execute Workflow node reads them. Only the
 * editor can read another workflow (n8n gives a running node no way to), so the fields are kept in
 * the node's parameters and List Tools offers them. They are shown read-only: the model gives the values.
 */
export async function getWorkflowToolInputs(
	this: ILocalLoadOptionsFunctions,
): Promise<ResourceMapperFields> {
	const trigger = await triggerOfEntry(this as EditorContext);
	if (!trigger)
		return {
			fields: [],
			emptyFieldsNotice:
				"Choose a workflow from the list: its 'When Executed by Another Workflow' trigger defines the inputs (a workflow chosen by an expression cannot be read here: give its Input Schema as JSON Schema)",
		};
	const inputs = triggerFields(trigger);
	if (inputs === 'acceptsAll')
		return {
			fields: [],
			emptyFieldsNotice:
				"The workflow's trigger accepts all data: the model is offered any JSON object, and told so",
		};
	return { fields: inputs.map(asMapperField) };
}

/**
 * The trigger of the workflow this entry of Workflow Tools names. n8n's reader looks up the node's
 * `workflowId`; inside a Workflow Tools entry that is the entry's own, found at the entry's path.
 */
async function triggerOfEntry(context: EditorContext): Promise<IWorkflowNodeContext | null> {
	const entryWorkflow = context.getCurrentNodeParameter?.('&workflowId');
	if (entryWorkflow === undefined) {
		return await context.getWorkflowNodeContext(EXECUTE_WORKFLOW_TRIGGER_NODE_TYPE);
	}
	const scoped = Object.create(context, {
		getCurrentNodeParameter: {
			value: (name: string) =>
				name === 'workflowId' ? entryWorkflow : context.getCurrentNodeParameter?.(name),
		},
	}) as EditorContext;
	return await context.getWorkflowNodeContext.call(scoped, EXECUTE_WORKFLOW_TRIGGER_NODE_TYPE);
}

/** The trigger's fields by its Input Data Mode (fields, a JSON example, or all data; v1 takes all data). */
export function triggerFields(
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

function asMapperField({
	name,
	type,
}: {
	name: string;
	type: TriggerFieldType;
}): ResourceMapperField {
	return {
		id: name,
		displayName: name,
		required: false,
		defaultMatch: false,
		display: true,
		canBeUsedToMatch: false,
		readOnly: true,
		...(type !== 'any' && { type: type as FieldType }),
	};
}
