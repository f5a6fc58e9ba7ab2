/** The verdicts and phase timings of an end-to-end run, printed as they come and summed up at the end. */
export class Results {
	readonly lines: string[] = [];
	failed = 0;
	/** Put before every check and phase name: which n8n a second run of the phases is on. */
	label = '';
	private readonly notes: string[] = [];
	private readonly timings: string[] = [];
	private phaseName?: string;
	private phaseStart = 0;

	pass(name: string): void {
		this.lines.push(`PASS  ${this.label}${name}`);
		console.log(`PASS  ${this.label}${name}`);
	}

	fail(name: string, why = ''): void {
		const line = `FAIL  ${this.label}${name}${why ? ` — ${why.replace(/\n/g, '; ')}` : ''}`;
		this.lines.push(line);
		console.error(line);
		this.failed++;
	}

	check(name: string, passed: boolean, why?: string): void {
		if (passed) this.pass(name);
		else this.fail(name, why);
	}

	/** Reads a checker's `PASS<TAB>name` / `FAIL<TAB>name<TAB>why` lines; other lines are shown as notes. */
	record(output: string): void {
		for (const line of output.split('\n')) {
			const [verdict, name, why] = line.split('\t');
			if (verdict === 'PASS' && name) this.pass(name);
			else if (verdict === 'FAIL' && name) this.fail(name, why);
			else if (line.trim()) console.log(`    ${line.trim()}`);
		}
	}

	/** Something the run decided that is no check (a version left out, and why): shown in the summary. */
	note(text: string): void {
		this.notes.push(text);
		console.log(`    ${text}`);
	}

	phase(name: string): void {
		this.phaseEnd();
		this.phaseName = `${this.label}${name}`;
		this.phaseStart = performance.now();
		console.log(`==> ${this.phaseName}`);
	}

	phaseEnd(): void {
		if (this.phaseName === undefined) return;
		const seconds = (performance.now() - this.phaseStart) / 1000;
		this.timings.push(`${this.phaseName.padEnd(50)} ${seconds.toFixed(1).padStart(6)} s`);
		this.phaseName = undefined;
	}

	/** Prints the summary; whether every check passed. */
	summary(): boolean {
		this.phaseEnd();
		console.log('\n================ e2e summary ================');
		for (const line of this.lines) console.log(line);
		for (const note of this.notes) console.log(`NOTE  ${note}`);
		console.log('---------------- timings --------------------');
		for (const line of this.timings) console.log(line);
		if (this.failed > 0) {
			console.log(
				`RESULT: FAIL (${this.failed} failed, ${this.lines.length - this.failed} passed)`,
			);
			return false;
		}
		console.log(`RESULT: PASS (${this.lines.length} checks)`);
		return true;
	}
}
