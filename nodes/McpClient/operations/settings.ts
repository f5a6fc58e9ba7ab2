import type { IExecuteFunctions } from 'n8n-workflow';
import { DEFAULT_CONCURRENCY } from '../../shared/items';

export interface CallSettings {
	timeoutMs: number;
	onToolError: 'toModel' | 'failNode';
	concurrency: number;
}

export function callSettingsOf(context: IExecuteFunctions): CallSettings {
	const options = context.getNodeParameter('options', 0, {}) as Partial<CallSettings>;
	return {
		timeoutMs: options.timeoutMs ?? 60_000,
		onToolError: options.onToolError ?? 'toModel',
		concurrency: options.concurrency ?? DEFAULT_CONCURRENCY,
	};
}
