/**
 * Whether a converted tool still means what the tool means. Arguments are sampled from what the
 * vendor's model is offered (offeredSchema), sent back as the vendor would send a call to that
 * tool (the stand-in's wire module), read by the dialect's own parser and the conversation's own
 * turn logic (names mapped back, strict mode's nulls dropped), and checked with ajv against the
 * tool's ORIGINAL schema. Arguments the original refuses are a loss, and a silent one unless a
 * description the model reads on the way to the refused value names the keyword that refuses it
 * (with its value, when that is a single value): what a vendor cannot express must be told.
 */
import { applyModelTurn } from '../../lib/decision/applyTurn';
import type { Conversation, JsonSchema, Tool } from '../../lib/conversation/types';
import { DIALECTS } from '../../lib/dialects/registry';
import type { Dialect, DialectId, ModelSettings } from '../../lib/dialects/types';
import type { SchemaIssue, SchemaValidator } from '../../lib/schema/validator';
import { descriptionsAlong, offeredSchema } from './offeredSchema';
import { sampleValues } from './schemaSampler';
import { WIRES } from './standIn/dialects';
import { reply } from './standIn/turns';
import { functionsOf } from './vendorRules';

export interface MeaningResult {
	/** Samples the offered schema accepts, each checked against the original. */
	checked: number;
	/** Samples the original refuses, told to the model or not. */
	losses: Loss[];
}

export interface Loss {
	arguments: unknown;
	issues: SchemaIssue[];
	/** Whether every refusal is named in a description the model reads. */
	told: boolean;
}

const SAMPLES_PER_TOOL = 8;

export function checkMeaning(
	dialectId: DialectId,
	tool: Tool,
	strict: boolean,
	validator: SchemaValidator,
	dialect: Dialect = DIALECTS[dialectId],
): MeaningResult {
	const settings: ModelSettings = { model: 'm', toolChoice: 'auto', stream: false, strict };
	const conversation: Conversation = {
		messages: [{ role: 'user', content: 'x' }],
		tools: [tool],
		toolCalls: [],
		trace: [],
	};
	const { body, names, notStrict } = dialect.buildRequest(conversation, settings);
	const [fn] = functionsOf(dialectId, body as Record<string, unknown>);
	const offered = offeredSchema(dialectId, fn.schema);
	const toldTexts = (path: string) => [
		...(typeof fn.description === 'string' ? [fn.description] : []),
		...descriptionsAlong(offered, path),
	];
	const strictTools = new Set(strict && notStrict.length === 0 ? [tool.name] : []);
	const wire = WIRES[dialectId]({});
	const result: MeaningResult = { checked: 0, losses: [] };
	// Arguments are an object with every vendor, whatever the schema says.
	const argumentsSchema = { type: 'object', ...offered };
	for (const sample of sampleValues(argumentsSchema, SAMPLES_PER_TOOL, seedOf(tool.name))) {
		if (validator.check(offered, sample).status !== 'valid') continue;
		const answer = wire.answer(
			reply.toolCalls([{ name: String(fn.name), arguments: JSON.stringify(sample) }]),
			{ model: 'm', stream: false },
			{
				method: 'POST',
				url: '/',
				pathname: '/',
				query: new URLSearchParams(),
				headers: {},
				body,
				text: '',
			},
		).body;
		const turn = dialect.parseResponse(answer, names);
		const unpriced = { cost: null, costUnknown: 'not priced: only the arguments are checked' };
		const [call] = applyModelTurn(conversation, turn, strictTools, unpriced).toolCalls;
		if (call.name !== tool.name) throw new Error(`${tool.name} came back as ${call.name}`);
		result.checked++;
		const check = validator.check(tool.inputSchema, call.arguments);
		if (check.status === 'valid') continue;
		if (check.status === 'unchecked') throw new Error(`${tool.name}: ${check.reason}`);
		const told = toldAway(call.arguments, tool.inputSchema, toldTexts, validator);
		result.losses.push({ arguments: call.arguments, issues: check.issues, told });
	}
	return result;
}

/**
 * Whether the refusals are all told: each refusing keyword that a description on the way to the
 * refused value names is taken out of (a copy of) the original, a told oneOf becomes anyOf, and
 * the value is checked again, until it passes (all told) or a refusal is left that nothing told.
 * Refusals in a union's branches thus count only for the branch the value was meant for.
 */
function toldAway(
	value: unknown,
	original: JsonSchema,
	toldTexts: (instancePath: string) => string[],
	validator: SchemaValidator,
): boolean {
	const relaxed = structuredClone(original);
	for (let round = 0; round < 20; round++) {
		const check = validator.check(relaxed, value);
		if (check.status !== 'invalid') return check.status === 'valid';
		let changed = false;
		for (const issue of check.issues) {
			const keyword = issue.schemaPath.split('/').pop()!;
			// A failed anyOf is its branches' failures, which are judged themselves.
			if (keyword === 'anyOf' || !isTold(issue, relaxed, toldTexts(issue.instancePath))) continue;
			const node = valueAt(relaxed, issue.schemaPath.slice(0, -keyword.length - 1)) as Record<
				string,
				unknown
			>;
			if (!node || !(keyword in node)) continue;
			if (keyword === 'oneOf') node.anyOf = node.oneOf;
			delete node[keyword];
			changed = true;
		}
		if (!changed) return false;
	}
	return false;
}

function isTold(issue: SchemaIssue, schema: JsonSchema, texts: string[]): boolean {
	const keyword = issue.schemaPath.split('/').pop()!;
	const value = valueAt(schema, issue.schemaPath);
	const named =
		value !== null && typeof value === 'object'
			? `"${keyword}":`
			: `"${keyword}":${JSON.stringify(value)}`;
	return texts.some((text) => text.includes(named));
}

/** The value at a JSON Pointer ("#/a/0/b"), through arrays too. */
function valueAt(root: unknown, pointer: string): unknown {
	let target = root;
	for (const token of pointer.replace(/^#\/?/, '').split('/').filter(Boolean)) {
		const key = decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');
		if (typeof target !== 'object' || target === null || !Object.hasOwn(target, key))
			return undefined;
		target = (target as Record<string, unknown>)[key];
	}
	return target;
}

function seedOf(text: string): number {
	let h = 0x811c9dc5;
	for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
	return h >>> 0;
}
