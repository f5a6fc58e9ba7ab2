import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

/** A list of name/value pairs (headers, environment variables), values hidden like passwords. */
export function namedValuesProperty(options: {
	displayName: string;
	name: string;
	entryName: string;
	entryDisplayName: string;
	description: string;
	displayOptions?: IDisplayOptions;
}): INodeProperties {
	return {
		displayName: options.displayName,
		name: options.name,
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		default: {},
		placeholder: `Add ${options.entryDisplayName}`,
		description: options.description,
		...(options.displayOptions && { displayOptions: options.displayOptions }),
		options: [
			{
				displayName: options.entryDisplayName,
				name: options.entryName,
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '' },
					{
						displayName: 'Value',
						name: 'value',
						type: 'string',
						typeOptions: { password: true },
						default: '',
					},
				],
			},
		],
	};
}

/** The pairs as a record; entries without a name are skipped, values are kept exactly as typed. */
export function namedValuesToRecord(
	collection: unknown,
	entryName: string,
): Record<string, string> {
	const entries =
		(collection as Record<string, Array<{ name?: string; value?: string }>> | undefined)?.[
			entryName
		] ?? [];
	const record: Record<string, string> = {};
	for (const { name, value } of entries) if (name?.trim()) record[name.trim()] = value ?? '';
	return record;
}
