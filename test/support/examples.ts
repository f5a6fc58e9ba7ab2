import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { INode } from 'n8n-workflow';
import type { WorkflowJson } from './engine';
import { REPO_ROOT } from './servers';

/** An example workflow as a user imports it, optionally with some node parameters changed. */
export function loadExample(
	file: string,
	overrides: Record<string, Partial<INode['parameters']>> = {},
): WorkflowJson {
	const workflow = JSON.parse(
		readFileSync(path.join(REPO_ROOT, 'examples', file), 'utf8'),
	) as WorkflowJson;
	for (const node of workflow.nodes) {
		if (overrides[node.name]) node.parameters = { ...node.parameters, ...overrides[node.name] };
	}
	return workflow;
}
