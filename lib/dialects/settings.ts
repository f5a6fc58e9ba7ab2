import type { Tool } from '../conversation/types';
import type { ModelSettings, NotStrict } from './types';

/** Temperature and the token limit, each only when set; the limit under the vendor's name for it. */
export function sampling<TLimit extends string>(
	settings: ModelSettings,
	limit: TLimit,
): { temperature?: number } & { [key in TLimit]?: number } {
	return {
		...(settings.temperature !== undefined && { temperature: settings.temperature }),
		...(settings.maxTokens !== undefined && { [limit]: settings.maxTokens }),
	};
}

/** For vendors without strict mode: when strict was asked for, every tool, each with `reason`. */
export function notStrictAll(tools: readonly Tool[], strict: boolean, reason: string): NotStrict[] {
	return strict ? tools.map((tool) => ({ name: tool.name, reason })) : [];
}
