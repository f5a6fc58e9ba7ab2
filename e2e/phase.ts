/** What every phase of the end-to-end test receives from the run. */
export interface PhaseRun {
	/** The checkout: examples/, test/servers/, node_modules/ (the MCP servers). */
	projectRoot: string;
	/** A fresh folder for this phase's files and logs. */
	runDir: string;
	/** Multiplies every time limit (slow machines). */
	timeoutScale: number;
	/** Marks every process of the run (an environment variable E2E_RUN_ID), so the leak check finds any left. */
	runId: string;
	/** Records one check: a PASS or FAIL line of the run. */
	check(name: string, passed: boolean, why?: string): void;
}

/** A running `n8n start` with the package installed the Community-Nodes way and a signed-in owner. */
export interface RunningN8n {
	/** Editor, REST, webhooks and form-waiting, e.g. http://127.0.0.1:5679 */
	baseUrl: string;
	/** The owner's `n8n-auth=…` cookie for /rest/* calls. */
	cookie: string;
	/** Its N8N_USER_FOLDER. */
	userFolder: string;
}
