/**
 * Values a model could produce under a JSON Schema, for checking what a converted schema lets
 * through. The first sample takes every edge at its low end (only required properties, the
 * shortest strings, the smallest counts and numbers), the second at its high end (every property,
 * the longest, the largest), the rest are drawn from a seeded generator. Where the schema sets no
 * limit, edge values are what a schema that lost a constraint lets through: empty strings,
 * negative and fractional numbers, extra keys in free-form objects, and values of any JSON type
 * where no type is given. A sample may still miss the schema (a pattern this generator cannot
 * read, a uniqueness clash): callers keep only those the schema accepts.
 */
import type { JsonSchema } from '../../lib/conversation/types';
import { isRecord } from '../../lib/json/value';
import { resolvePointer } from '../../lib/schema/pointer';

type Json = Record<string, unknown>;
type Mode = 'low' | 'high' | 'random';

interface Context {
	root: JsonSchema;
	mode: Mode;
	random: () => number;
	depth: number;
}

/** No value can be made here (a `false` schema, recursion too deep). */
const NONE = Symbol('none');
type Made = unknown | typeof NONE;

const MAX_DEPTH = 14;

/** `count` samples of the schema (at least the two edge samples). */
export function sampleValues(schema: JsonSchema, count: number, seed: number): unknown[] {
	const random = mulberry32(seed);
	const modes: Mode[] = ['low', 'high', ...Array<Mode>(Math.max(0, count - 2)).fill('random')];
	return modes
		.map((mode) => make(schema, { root: schema, mode, random, depth: 0 }))
		.filter((value) => value !== NONE);
}

function make(node: unknown, ctx: Context): Made {
	if (node === false) return NONE;
	if (!isRecord(node)) return anyValue(ctx);
	if (ctx.depth > MAX_DEPTH) return NONE;
	const inner = { ...ctx, depth: ctx.depth + 1 };
	if (typeof node.$ref === 'string') {
		const { $ref, ...siblings } = node;
		const target = resolvePointer(ctx.root, $ref);
		return make(isRecord(target) ? { ...target, ...siblings } : siblings, inner);
	}
	if (Array.isArray(node.allOf)) {
		const { allOf, ...own } = node;
		return make(mergeAll([own, ...allOf.map((branch) => resolved(branch, ctx.root))]), inner);
	}
	if ('const' in node) return node.const;
	if (Array.isArray(node.enum) && node.enum.length > 0) return pick(node.enum, ctx);
	const union = (node.anyOf ?? node.oneOf) as unknown[] | undefined;
	if (Array.isArray(union) && union.length > 0) {
		const { anyOf: _anyOf, oneOf: _oneOf, ...own } = node;
		const branch = resolved(pick(union, ctx), ctx.root);
		return make(mergeAll([own, branch]), inner);
	}
	const type = pick(typesOf(node), ctx);
	switch (type) {
		case 'string':
			return makeString(node, ctx);
		case 'number':
		case 'integer':
			return makeNumber(node, type === 'integer', ctx);
		case 'boolean':
			return ctx.mode === 'low' ? false : ctx.mode === 'high' ? true : ctx.random() < 0.5;
		case 'null':
			return null;
		case 'array':
			return makeArray(node, inner);
		case 'object':
			return makeObject(node, inner);
		default:
			return anyValue(ctx);
	}
}

function resolved(node: unknown, root: JsonSchema): Json {
	if (!isRecord(node)) return node === false ? { not: {} } : {};
	if (typeof node.$ref !== 'string') return node;
	const { $ref, ...siblings } = node;
	const target = resolvePointer(root, $ref);
	return { ...(isRecord(target) ? target : {}), ...siblings };
}

/** Schemas that must all hold, as one: properties and required joined, other keywords from the first that has them. */
function mergeAll(schemas: Json[]): Json {
	const merged: Json = {};
	for (const schema of schemas) {
		for (const [key, value] of Object.entries(schema)) {
			if (key === 'properties' && isRecord(value))
				merged.properties = { ...(value as Json), ...(merged.properties as Json | undefined) };
			else if (key === 'required' && Array.isArray(value))
				merged.required = [...((merged.required as unknown[]) ?? []), ...value];
			else if (!(key in merged)) merged[key] = value;
		}
	}
	return merged;
}

function typesOf(node: Json): string[] {
	if (node.type !== undefined) return [node.type].flat().map(String);
	if (
		['properties', 'additionalProperties', 'required', 'patternProperties'].some((k) => k in node)
	)
		return ['object'];
	if ('items' in node || 'minItems' in node) return ['array'];
	if (['pattern', 'format', 'minLength', 'maxLength'].some((k) => k in node)) return ['string'];
	if (['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'].some((k) => k in node))
		return ['number'];
	return ['any'];
}

function pick<T>(items: readonly T[], ctx: Context): T {
	if (ctx.mode === 'low') return items[0];
	if (ctx.mode === 'high') return items[items.length - 1];
	return items[Math.floor(ctx.random() * items.length)];
}

/** A value of any JSON type: what a schema without a type lets through. */
function anyValue(ctx: Context): unknown {
	return pick<unknown>(['', -1.5, true, null, 'text', { key: 1 }, [0, 'x'], 7], ctx);
}

const FORMATS: Record<string, string> = {
	'date-time': '2024-02-29T13:45:00Z',
	date: '2024-02-29',
	time: '13:45:00Z',
	duration: 'P1DT2H',
	email: 'someone@example.com',
	'idn-email': 'someone@example.com',
	hostname: 'example.com',
	'idn-hostname': 'example.com',
	ipv4: '192.0.2.7',
	ipv6: '2001:db8::7',
	uuid: '3f2c8a9e-6b1d-4c7a-9e2f-0a1b2c3d4e5f',
	uri: 'https://example.com/a/b?c=d',
	'uri-reference': '/a/b',
	iri: 'https://example.com/a',
	'iri-reference': '/a',
	url: 'https://example.com/a',
	'json-pointer': '/a/0',
	regex: '^a+$',
};
const TEXT = 'ab Z9-_/.:é,"';

function makeString(node: Json, ctx: Context): Made {
	if (typeof node.format === 'string' && Object.hasOwn(FORMATS, node.format))
		return FORMATS[node.format];
	if (typeof node.pattern === 'string') {
		try {
			return fromPattern(node.pattern, ctx);
		} catch {
			return NONE;
		}
	}
	const low = count(node.minLength) ?? 0;
	const length = between(low, Math.min(count(node.maxLength) ?? low + 24, low + 40), ctx);
	return Array.from({ length }, (_, i) =>
		ctx.mode === 'random' ? TEXT[Math.floor(ctx.random() * TEXT.length)] : TEXT[i % TEXT.length],
	).join('');
}

function makeNumber(node: Json, integer: boolean, ctx: Context): Made {
	const step = integer ? 1 : 0.5;
	const low =
		typeof node.minimum === 'number'
			? node.minimum
			: typeof node.exclusiveMinimum === 'number'
				? node.exclusiveMinimum + step
				: undefined;
	const high =
		typeof node.maximum === 'number'
			? node.maximum
			: typeof node.exclusiveMaximum === 'number'
				? node.exclusiveMaximum - step
				: undefined;
	let value: number;
	if (ctx.mode === 'low') value = low ?? (integer ? -1 : -1.5);
	else if (ctx.mode === 'high') value = high ?? (integer ? 1_000_000_000 : 1_000_000.5);
	else {
		const from = low ?? Math.min(-1000, (high ?? 0) - 1000);
		const to = high ?? from + 2000;
		value = from + ctx.random() * (to - from);
	}
	if (typeof node.multipleOf === 'number' && node.multipleOf > 0)
		value = Math.ceil(value / node.multipleOf) * node.multipleOf;
	if (integer) value = ctx.mode === 'high' ? Math.floor(value) : Math.ceil(value);
	return value;
}

function makeArray(node: Json, ctx: Context): Made {
	const low = count(node.minItems) ?? 0;
	const length = between(low, Math.min(count(node.maxItems) ?? low + 3, low + 3), ctx);
	const tuple = Array.isArray(node.items)
		? node.items
		: Array.isArray(node.prefixItems)
			? node.prefixItems
			: [];
	const items: unknown[] = [];
	for (let i = 0; i < length; i++) {
		const schema =
			i < tuple.length ? tuple[i] : Array.isArray(node.items) ? node.additionalItems : node.items;
		const item = make(schema ?? {}, ctx);
		if (item === NONE) return NONE;
		items.push(item);
	}
	return items;
}

function makeObject(node: Json, ctx: Context): Made {
	const properties = isRecord(node.properties) ? node.properties : {};
	const required = Array.isArray(node.required) ? node.required.map(String) : [];
	const declared = Object.keys(properties);
	const chosen = new Set(required);
	for (const key of declared)
		if (ctx.mode === 'high' || (ctx.mode === 'random' && ctx.random() < 0.5)) chosen.add(key);
	const out: Json = {};
	for (const key of chosen) {
		const schema = Object.hasOwn(properties, key) ? properties[key] : extraSchema(node);
		const value = make(schema, ctx);
		if (value !== NONE) out[key] = value;
		else if (required.includes(key)) return NONE;
	}
	// Extra keys only where the object declares no properties (not even an empty list): a model fills the properties it is shown.
	const extras =
		node.additionalProperties === false || 'properties' in node
			? 0
			: ctx.mode === 'low'
				? 0
				: ctx.mode === 'high'
					? 2
					: 1;
	const wanted = Math.max(extras, (count(node.minProperties) ?? 0) - Object.keys(out).length);
	for (let i = 0; i < wanted && node.additionalProperties !== false; i++) {
		const key = extraKey(node, i, ctx);
		const value = make(extraSchema(node), ctx);
		if (value === NONE || key === NONE) return NONE;
		out[key as string] = value;
	}
	return out;
}

function extraSchema(node: Json): unknown {
	return isRecord(node.additionalProperties) ? node.additionalProperties : {};
}

function extraKey(node: Json, index: number, ctx: Context): Made {
	const names = isRecord(node.propertyNames) ? node.propertyNames : {};
	if (typeof names.pattern === 'string') {
		try {
			return fromPattern(names.pattern, ctx);
		} catch {
			return NONE;
		}
	}
	return `key_${index + 1}`;
}

/** A whole number from low to high: an end at the edges, any in between at random. */
function between(low: number, high: number, ctx: Context): number {
	if (ctx.mode === 'low') return low;
	if (ctx.mode === 'high') return high;
	return low + Math.floor(ctx.random() * (high - low + 1));
}

function count(value: unknown): number | undefined {
	return Number.isInteger(value) && (value as number) >= 0 ? (value as number) : undefined;
}

/** Small deterministic generator (mulberry32). */
function mulberry32(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

// --- strings from regular expressions: literals, classes, groups, alternation and quantifiers ---

type Node =
	| { kind: 'chars'; chars: string[]; negated: boolean }
	| { kind: 'group'; alternatives: Node[][] }
	| { kind: 'repeat'; node: Node; min: number; max: number };

const CLASS_ESCAPES: Record<string, string> = {
	d: '0123456789',
	w: 'abcxyzABCXYZ0123456789_',
	s: ' ',
};
const NEGATED_CANDIDATES = 'aZ0_- .x9@';

/** A string the pattern matches; throws for constructs it does not read (lookaround, backreferences). */
export function fromPattern(pattern: string, ctx: Pick<Context, 'mode' | 'random'>): string {
	const parser = { text: pattern, at: 0 };
	const tree = parseAlternatives(parser);
	if (parser.at < pattern.length) throw new Error(`cannot read the pattern at ${parser.at}`);
	return render({ kind: 'group', alternatives: tree }, ctx);
}

function parseAlternatives(p: { text: string; at: number }): Node[][] {
	const alternatives: Node[][] = [[]];
	while (p.at < p.text.length && p.text[p.at] !== ')') {
		const char = p.text[p.at];
		if (char === '|') {
			p.at++;
			alternatives.push([]);
			continue;
		}
		if (char === '^' || char === '$') {
			p.at++;
			continue;
		}
		let atom = parseAtom(p);
		atom = parseQuantifier(p, atom);
		alternatives[alternatives.length - 1].push(atom);
	}
	return alternatives;
}

function parseAtom(p: { text: string; at: number }): Node {
	const char = p.text[p.at++];
	if (char === '(') {
		if (p.text[p.at] === '?') {
			const kind = p.text[p.at + 1];
			if (kind === ':') p.at += 2;
			else if (kind === '<' && /[A-Za-z]/.test(p.text[p.at + 2]))
				p.at = p.text.indexOf('>', p.at) + 1;
			else throw new Error('lookaround is not read');
		}
		const alternatives = parseAlternatives(p);
		if (p.text[p.at++] !== ')') throw new Error('unclosed group');
		return { kind: 'group', alternatives };
	}
	if (char === '[') return parseClass(p);
	if (char === '.') return { kind: 'chars', chars: [...'aZ0 _'], negated: false };
	if (char === '\\') return escapeNode(p.text[p.at++]);
	return { kind: 'chars', chars: [char], negated: false };
}

function escapeNode(char: string): Node {
	if (/[1-9]/.test(char)) throw new Error('backreferences are not read');
	const lower = char.toLowerCase();
	if (Object.hasOwn(CLASS_ESCAPES, lower))
		return { kind: 'chars', chars: [...CLASS_ESCAPES[lower]], negated: char !== lower };
	const controls: Record<string, string> = { n: '\n', t: '\t', r: '\r' };
	return { kind: 'chars', chars: [controls[char] ?? char], negated: false };
}

function parseClass(p: { text: string; at: number }): Node {
	const negated = p.text[p.at] === '^';
	if (negated) p.at++;
	const chars: string[] = [];
	let first = true;
	while (p.at < p.text.length && (p.text[p.at] !== ']' || first)) {
		first = false;
		let char = p.text[p.at++];
		if (char === '\\') {
			const escaped = escapeNode(p.text[p.at++]);
			if (escaped.kind === 'chars' && !escaped.negated && escaped.chars.length > 1) {
				chars.push(...escaped.chars);
				continue;
			}
			if (escaped.kind !== 'chars' || escaped.negated) throw new Error('negated escape in a class');
			char = escaped.chars[0];
		}
		if (p.text[p.at] === '-' && p.text[p.at + 1] !== ']' && p.at + 1 < p.text.length) {
			let end = p.text[p.at + 1];
			p.at += 2;
			if (end === '\\') end = p.text[p.at++];
			for (let code = char.charCodeAt(0); code <= end.charCodeAt(0); code++)
				chars.push(String.fromCharCode(code));
		} else chars.push(char);
	}
	if (p.text[p.at++] !== ']') throw new Error('unclosed class');
	return { kind: 'chars', chars, negated };
}

function parseQuantifier(p: { text: string; at: number }, node: Node): Node {
	const char = p.text[p.at];
	let min: number;
	let max: number;
	if (char === '*') [min, max] = [0, Infinity];
	else if (char === '+') [min, max] = [1, Infinity];
	else if (char === '?') [min, max] = [0, 1];
	else if (char === '{' && /^\{\d+(,\d*)?\}/.test(p.text.slice(p.at))) {
		const [, from, to] = /^\{(\d+)(?:,(\d*))?\}/.exec(p.text.slice(p.at))!;
		const close = p.text.indexOf('}', p.at);
		p.at = close;
		min = Number(from);
		max = to === undefined ? min : to === '' ? Infinity : Number(to);
	} else return node;
	p.at++;
	if (p.text[p.at] === '?') p.at++;
	return { kind: 'repeat', node, min, max };
}

function render(node: Node, ctx: Pick<Context, 'mode' | 'random'>): string {
	const choose = (n: number) =>
		ctx.mode === 'low' ? 0 : ctx.mode === 'high' ? n - 1 : Math.floor(ctx.random() * n);
	switch (node.kind) {
		case 'chars': {
			const pool = node.negated
				? [...NEGATED_CANDIDATES].filter((c) => !node.chars.includes(c))
				: node.chars;
			if (pool.length === 0) throw new Error('empty class');
			return pool[choose(pool.length)];
		}
		case 'group':
			return node.alternatives[choose(node.alternatives.length)]
				.map((part) => render(part, ctx))
				.join('');
		case 'repeat': {
			const max = Math.min(node.max, node.min + 3);
			const times = node.min + choose(max - node.min + 1);
			return Array.from({ length: times }, () => render(node.node, ctx)).join('');
		}
	}
}
