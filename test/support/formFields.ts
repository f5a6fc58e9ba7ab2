/** The options n8n shows for a field whose values are `values`: each value named by itself. */
export const optionsOf = (...values: string[]) => values.map((value) => ({ name: value, value }));
