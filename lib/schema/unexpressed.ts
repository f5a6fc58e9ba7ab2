/**
 * What a vendor's schema subset cannot hold is told to the model, never dropped in silence: the
 * keywords left out are written into the description the model reads, as JSON Schema (which models
 * read well). The executor still checks the arguments against the tool's own schema.
 */

/** The description with the unexpressed keywords appended; unchanged when there are none. */
export function describeUnexpressed(
	description: string | undefined,
	unexpressed: Record<string, unknown>,
): string | undefined {
	if (Object.keys(unexpressed).length === 0) return description;
	const note = `JSON Schema: ${JSON.stringify(unexpressed)}`;
	return description ? `${description}\n${note}` : note;
}

/** What a vendor can express of `oneOf`: its branches as anyOf, and this note that only one may match. */
export const ONE_OF_NOTE = 'exactly one of the anyOf schemas';
