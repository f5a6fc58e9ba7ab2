import type { Conversation } from '../conversation/types';
import type { ToolNameMap } from './types';

/**
 * A vendor's tool-name rule. The patterns test ONE character and must not carry the g flag.
 * Repairs write '_', digits and lower-case hex, so `allowed` must accept those (every vendor does).
 */
export interface ToolNameRule {
	allowed: RegExp;
	maxLength: number;
	/** What the first character must be, when the vendor restricts it more than the rest. */
	first?: RegExp;
}

const HASH_LENGTH = 8;

/**
 * Maps conversation tool names to names the vendor accepts, reversibly. Legal names keep their
 * spelling; the others are repaired, and clashes are settled over the sorted names so the result
 * depends only on the set of names, not on their order.
 */
export function buildToolNameMap(names: readonly string[], rule: ToolNameRule): ToolNameMap {
	const toVendor = new Map<string, string>();
	const fromVendor = new Map<string, string>();
	const unique = [...new Set(names)];
	for (const name of unique.filter((name) => isLegal(name, rule))) {
		toVendor.set(name, name);
		fromVendor.set(name, name);
	}
	for (const name of unique.filter((name) => !isLegal(name, rule)).sort()) {
		const base = repair(name, rule);
		let vendorName = base;
		for (let n = 2; fromVendor.has(vendorName); n++) {
			const suffix = `_${n}`;
			vendorName = base.slice(0, rule.maxLength - suffix.length) + suffix;
		}
		toVendor.set(name, vendorName);
		fromVendor.set(vendorName, name);
	}
	return {
		// A name outside the map (a call in history to a tool since removed) is still made legal.
		toVendor: (name) => toVendor.get(name) ?? (isLegal(name, rule) ? name : repair(name, rule)),
		// An unknown vendor name stays as it is, so the executor reports it as an unknown tool.
		fromVendor: (vendorName) => fromVendor.get(vendorName) ?? vendorName,
	};
}

function isLegal(name: string, rule: ToolNameRule): boolean {
	const chars = [...name];
	return (
		chars.length > 0 &&
		name.length <= rule.maxLength &&
		chars.every((char) => rule.allowed.test(char)) &&
		(!rule.first || rule.first.test(chars[0]))
	);
}

/** Illegal characters become '_', a bad first character gets a '_' before it, long names a hash. */
function repair(name: string, rule: ToolNameRule): string {
	let repaired = [...name].map((char) => (rule.allowed.test(char) ? char : '_')).join('');
	if (repaired === '' || (rule.first && !rule.first.test(repaired[0]))) repaired = `_${repaired}`;
	if (repaired.length <= rule.maxLength) return repaired;
	// The hash is of the original name, so two long names sharing a prefix stay apart.
	return `${repaired.slice(0, rule.maxLength - HASH_LENGTH - 1)}_${hash(name)}`;
}

/** FNV-1a, 32 bits: short, stable across runs and runtimes. */
function hash(text: string): string {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) {
		h ^= text.charCodeAt(i);
		h = Math.imul(h, 0x01000193);
	}
	return (h >>> 0).toString(16).padStart(HASH_LENGTH, '0');
}

/**
 * The names a request must map: the tools offered, and those called in history, so that a call to a
 * tool since removed still gets a legal vendor name.
 */
export function historyToolNames(conversation: Pick<Conversation, 'messages' | 'tools'>): string[] {
	const called = conversation.messages.flatMap((message) =>
		message.role === 'assistant'
			? (message.tool_calls ?? []).map((call) => call.function.name)
			: [],
	);
	return [...conversation.tools.map((tool) => tool.name), ...called];
}
