import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { RegExpEngine } from 'ajv/dist/types';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { canonicalJson } from '../json/canonical';
import { jsonText } from '../json/stringify';
import type { JsonSchema } from '../conversation/types';
import { reasonOf } from '../util/errorReason';
import { olderIdiomsRewritten } from './olderDrafts';
import { guardedRegExp, refusedPatternPropertiesOpened } from './patterns';

export interface SchemaIssue {
	/** JSON Pointer into the checked value ("" is the value itself). */
	instancePath: string;
	/** Where in the schema the rule that failed lives. */
	schemaPath: string;
	message: string;
}

/** `skipped`: the patterns the check left out, and why (guardedRegExp). */
export type CheckResult =
	| { status: 'valid'; skipped?: string }
	| { status: 'invalid'; issues: SchemaIssue[]; skipped?: string }
	/** The schema cannot be compiled (malformed, remote $ref), or refers to itself without end: nothing was checked. */
	| { status: 'unchecked'; reason: string };

type Compiled = { validate: ValidateFunction; skipped?: string } | { error: string };

const MAX_CACHED_SCHEMAS = 1000;
const MAX_REPORTED_ISSUES = 10;
const ROOT_ID = 'urn:tool-schema:root';

/**
 * Checks values against JSON Schemas with ajv. Each distinct schema is compiled once and cached
 * by its canonical JSON, so a tool called for 100 items costs one compilation.
 * Draft 2020-12 unless `$schema` names an older draft; a schema that compiles only once older
 * drafts' idioms are rewritten (olderIdiomsRewritten) is checked so; vendor keywords (`x-…`) are
 * tolerated; remote `$ref`s are never fetched; a pattern that may take JavaScript's engine too
 * long runs in a linear-time one (guardedRegExp); one that neither can run is left out and named.
 */
export class SchemaValidator {
	/** The patterns left out of the schema being compiled, with why. */
	private readonly leftOut = new Map<string, string>();
	/** The patterns left out of a value of the one being checked (too long for a slow pattern), with why. */
	private readonly leftOutOfValues = new Map<string, string>();
	private readonly regExp = guardedRegExp(
		(pattern, reason) => this.leftOut.set(pattern, reason),
		(pattern, reason) => this.leftOutOfValues.set(pattern, reason),
	);
	private compilers = this.newCompilers();
	/** Schemas compiled by the current compilers. */
	private compilations = 0;
	private readonly cache = new Map<string, Compiled>();
	private readonly byText = new Map<string, Compiled>();

	check(schema: JsonSchema, value: unknown): CheckResult {
		const compiled = this.compile(schema);
		if ('error' in compiled) return { status: 'unchecked', reason: compiled.error };
		let valid: boolean;
		this.leftOutOfValues.clear();
		try {
			valid = compiled.validate(value) as boolean;
		} catch (error) {
			return { status: 'unchecked', reason: whyCheckThrew(error) };
		}
		const skippedText = [compiled.skipped, describeLeftOut(this.leftOutOfValues)]
			.filter((text) => text !== undefined && text !== '')
			.join('; ');
		const skipped = skippedText === '' ? {} : { skipped: skippedText };
		if (valid) return { status: 'valid', ...skipped };
		return { status: 'invalid', issues: (compiled.validate.errors ?? []).map(toIssue), ...skipped };
	}

	get cachedSchemaCount(): number {
		return this.cache.size;
	}

	private compile(schema: JsonSchema): Compiled {
		// The schema's JSON as it is finds a schema met before at a fraction of the cost of its
		// canonical form, which is worked out only to tell whether one in another key order is known.
		const text = jsonText(schema) ?? '';
		const known = this.byText.get(text);
		if (known) return known;
		const key = canonicalJson(schema);
		const compiled = this.cache.get(key) ?? this.compileUncached(schema);
		remember(this.cache, key, compiled);
		remember(this.byText, text, compiled);
		return compiled;
	}

	private compileUncached(schema: JsonSchema): Compiled {
		// An ajv instance keeps what the code it generated refers to (each schema, each validate
		// function) for as long as it lives: new ones, once the cache could hold nothing else, let
		// the old go with the last of their schemas evicted, however many schemas a server sends.
		if (this.compilations === MAX_CACHED_SCHEMAS) {
			this.compilers = this.newCompilers();
			this.compilations = 0;
		}
		this.compilations++;
		const { draft2020, draft07 } = this.compilers;
		const { $schema, ...rest } = schema;
		const ajv = typeof $schema === 'string' && /draft-0[4-7]/.test($schema) ? draft07 : draft2020;
		// A schema that refers to its own root ("$ref": "#", a tree) resolves it only under an id;
		// as no schema is registered (addUsedSchema: false), one id serves every schema without one.
		const rooted = refusedPatternPropertiesOpened(
			rest.$id === undefined ? { $id: ROOT_ID, ...rest } : rest,
		);
		this.leftOut.clear();
		let compiled = compiledBy(ajv, rooted);
		if ('error' in compiled) {
			// Servers write older drafts' idioms without naming the draft: tuple `items`, boolean bounds.
			const draft = ajv === draft07 ? 'draft7' : 'draft2020';
			const rewritten = compiledBy(ajv, olderIdiomsRewritten(rooted, draft));
			if ('validate' in rewritten) compiled = rewritten;
		}
		if ('error' in compiled || this.leftOut.size === 0) return compiled;
		return { ...compiled, skipped: describeLeftOut(this.leftOut) };
	}

	private newCompilers(): { draft2020: Ajv; draft07: Ajv } {
		return {
			draft2020: withFormats(new Ajv2020(ajvOptions(this.regExp))),
			draft07: withFormats(new Ajv(ajvOptions(this.regExp))),
		};
	}
}

function compiledBy(ajv: Ajv, schema: unknown): Compiled {
	try {
		const validate = ajv.compile(schema as JsonSchema);
		// ajv's own cache of compiled schemas is not needed beside ours, which is bounded.
		ajv.removeSchema(schema as JsonSchema);
		return { validate };
	} catch (error) {
		return { error: (error as Error).message };
	}
}

/**
 * A schema that refers to itself before looking into the value (`allOf: [{"$ref": "#"}]`,
 * `not: {"$ref": "#"}`) compiles, but checking against it recurses until the stack runs out.
 */
function whyCheckThrew(error: unknown): string {
	if (error instanceof RangeError)
		return `the schema refers to itself without end, or the value nests too deeply: checking it ran out of stack (${error.message})`;
	return `checking against the schema failed: ${reasonOf(error)}`;
}

function describeLeftOut(leftOut: Map<string, string>): string {
	return [...leftOut]
		.map(([pattern, reason]) => `pattern ${JSON.stringify(pattern)} was not checked: ${reason}`)
		.join('; ');
}

/** Keeps the entry, dropping the oldest when the map is full. */
function remember(map: Map<string, Compiled>, key: string, compiled: Compiled): void {
	if (map.has(key)) return;
	if (map.size >= MAX_CACHED_SCHEMAS) map.delete(map.keys().next().value!);
	map.set(key, compiled);
}

function ajvOptions(regExp: RegExpEngine) {
	// addUsedSchema:false: two servers may reuse one $id for different schemas. logger:false: a
	// format ajv does not know (a server's own, such as "json") is ignored, not warned about on the
	// console each time a schema holding it is compiled. multipleOfPrecision: a quotient within
	// 1e-9 of a whole number is one, as 19.99 / 0.01 gives 1998.9999999999998 in binary floating point.
	return {
		strict: false,
		allErrors: true,
		addUsedSchema: false,
		validateSchema: false,
		logger: false,
		multipleOfPrecision: 9,
		code: { regExp },
	} as const;
}

function withFormats<T extends Ajv>(ajv: T): T {
	addFormats(ajv);
	return ajv;
}

function toIssue(error: ErrorObject): SchemaIssue {
	const params = error.params as Record<string, unknown>;
	let message = error.message ?? 'is invalid';
	if (error.keyword === 'additionalProperties')
		message = `has an undeclared property '${String(params.additionalProperty)}'`;
	if (error.keyword === 'unevaluatedProperties')
		message = `has an undeclared property '${String(params.unevaluatedProperty)}'`;
	if (error.keyword === 'enum') message = `must be one of ${JSON.stringify(params.allowedValues)}`;
	if (error.keyword === 'const') message = `must be ${JSON.stringify(params.allowedValue)}`;
	return { instancePath: error.instancePath, schemaPath: error.schemaPath, message };
}

/** One line per issue, for a person or a model to act on. */
export function describeIssues(issues: SchemaIssue[]): string {
	const lines = issues.slice(0, MAX_REPORTED_ISSUES).map((issue) => {
		const where = issue.instancePath === '' ? 'the arguments object' : `'${issue.instancePath}'`;
		return `- ${where} ${issue.message} (schema rule ${issue.schemaPath})`;
	});
	if (issues.length > MAX_REPORTED_ISSUES)
		lines.push(`- and ${issues.length - MAX_REPORTED_ISSUES} more`);
	return lines.join('\n');
}
