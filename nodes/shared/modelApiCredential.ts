import type { Icon, INodeProperties } from 'n8n-workflow';
import { namedValuesProperty } from './namedValues';

export const MODEL_API_ICON: Icon = {
	light: 'file:../nodes/ToolCallingModel/model.svg',
	dark: 'file:../nodes/ToolCallingModel/model.dark.svg',
};

/** The fields every model API credential has: where the API is, its key, and extra headers. */
export function modelApiProperties(options: {
	defaultBaseUrl: string;
	baseUrlDescription: string;
	apiKeyDescription: string;
	/** Fields of this vendor only, shown between the key and the extra headers. */
	vendorFields?: INodeProperties[];
	/** A Base URL that may stay empty (for the provider's own), with this example shown. */
	optionalBaseUrl?: { placeholder: string };
	headersDescription?: string;
}): INodeProperties[] {
	return [
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: options.defaultBaseUrl,
			...(options.optionalBaseUrl ?? { required: true }),
			description: options.baseUrlDescription,
		},
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			description: options.apiKeyDescription,
		},
		...(options.vendorFields ?? []),
		namedValuesProperty({
			displayName: 'Extra Headers',
			name: 'headers',
			entryName: 'header',
			entryDisplayName: 'Header',
			description:
				options.headersDescription ??
				'Sent on every request, e.g. for a gateway or proxy in front of the API',
		}),
	];
}
