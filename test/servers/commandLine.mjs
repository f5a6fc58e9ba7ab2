// The command line of the test servers: Node's own parser, and bad usage ends the process with
// exit code 2 and one line naming the server and what is wrong.
import path from 'node:path';
import { parseArgs } from 'node:util';

const server = path.basename(process.argv[1] ?? 'server', '.mjs');

/** Ends the process on bad usage, the line prefixed with the server's name. */
export function fatal(message) {
	console.error(`${server}: ${message}`);
	process.exit(2);
}

/** The option values given in `args`, or the process ends naming the one it does not know. */
export function commandLine(args, options) {
	try {
		return parseArgs({ args, options }).values;
	} catch (error) {
		fatal(error.message);
	}
}
