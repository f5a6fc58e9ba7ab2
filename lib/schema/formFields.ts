import type { JsonSchema } from '../conversation/types';
import { isRecord } from '../json/value';
import { resolveRef } from './pointer';

export type FormFieldType = 'string' | 'number' | 'boolean' | 'object' | 'array' | 'options';

/** One form field per top-level property of a tool's input schema. */
export interface FormField {
	id: string;
	displayName: string;
	required: boolean;
	type: FormFieldType;
	options?: Array<{ name: string; value: string | number | boolean }>;
	description?: string;
}

type PropertySchema = {
	type?: string | string[];
	enum?: unknown[];
	description?: string;
	title?: string;
	$ref?: string;
	anyOf?: unknown[];
	oneOf?: unknown[];
};

export function schemaToFormFields(inputSchema: JsonSchema): FormField[] {
	const properties = formProperties(inputSchema);
	const required = new Set((inputSchema.required as string[] | undefined) ?? []);
	return Object.entries(properties).map(([id, property]) => {
		const field: FormField = {
			id,
			displayName: property.title ?? id,
			required: required.has(id),
			type: fieldType(property),
		};
		if (field.type === 'options') {
			field.options = (property.enum ?? [])
				.filter(
					(value): value is string | number | boolean =>
						value !== null && typeof value !== 'object',
				)
				.map((value) => ({ name: String(value), value }));
		}
		if (property.description) field.description = property.description;
		return field;
	});
}

/**
 * Form values as tool arguments: empty optional fields are left out and text typed into
 * number, boolean, object or array fields is converted. Anything that still does not fit is
 * left as it is for the schema check to report.
 */
export function formValuesToArguments(
	values: Record<string, unknown>,
	inputSchema: JsonSchema,
): Record<string, unknown> {
	const properties = formProperties(inputSchema);
	const required = new Set((inputSchema.required as string[] | undefined) ?? []);
	const args: Record<string, unknown> = {};
	for (const [name, value] of Object.entries(values)) {
		if ((value === undefined || value === null || value === '') && !required.has(name)) continue;
		args[name] = convert(value, primaryType(properties[name]));
	}
	return args;
}

/** The top-level properties, each as the form reads it (formSchemaOf). */
function formProperties(inputSchema: JsonSchema): Record<string, PropertySchema> {
	const properties = isRecord(inputSchema.properties) ? inputSchema.properties : {};
	return Object.fromEntries(
		Object.entries(properties).map(([id, property]) => [id, formSchemaOf(property, inputSchema)]),
	);
}

/**
 * A property's schema as a form field reads it: a local `$ref` followed (a nested model, as
 * pydantic writes it), and of `anyOf` / `oneOf` the one branch that is not null (`int | None`);
 * the property's own title and description come first.
 */
function formSchemaOf(property: unknown, root: JsonSchema, depth = 0): PropertySchema {
	if (!isRecord(property) || depth > 8) return {};
	const { title, description } = property as PropertySchema;
	const own = {
		...(title !== undefined && { title }),
		...(description !== undefined && { description }),
	};
	if (typeof property.$ref === 'string')
		return { ...formSchemaOf(resolveRef(root, property.$ref), root, depth + 1), ...own };
	const branches = Array.isArray(property.anyOf) ? property.anyOf : property.oneOf;
	const notNull = Array.isArray(branches)
		? branches.filter((branch) => !(isRecord(branch) && branch.type === 'null'))
		: [];
	if (property.type === undefined && notNull.length === 1)
		return { ...formSchemaOf(notNull[0], root, depth + 1), ...own };
	return property as PropertySchema;
}

function fieldType(property: PropertySchema): FormFieldType {
	if (Array.isArray(property.enum)) return 'options';
	const type = primaryType(property);
	if (type === 'integer' || type === 'number') return 'number';
	if (type === 'boolean' || type === 'object' || type === 'array') return type;
	return 'string';
}

function primaryType(property: PropertySchema | undefined): string | undefined {
	const type = property?.type;
	return Array.isArray(type) ? type.find((candidate) => candidate !== 'null') : type;
}

function convert(value: unknown, type: string | undefined): unknown {
	if (typeof value !== 'string') return value;
	const text = value.trim();
	if ((type === 'number' || type === 'integer') && text !== '' && !Number.isNaN(Number(text)))
		return Number(text);
	if (type === 'boolean' && (text === 'true' || text === 'false')) return text === 'true';
	if (type === 'object' || type === 'array') {
		try {
			return JSON.parse(text);
		} catch {
			return value;
		}
	}
	return value;
}
