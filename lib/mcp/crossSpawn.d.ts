// cross-spawn has no types of its own: it is child_process.spawn that also runs .cmd files on Windows (npx).
declare module 'cross-spawn' {
	import { spawn } from 'node:child_process';

	const crossSpawn: typeof spawn;
	export default crossSpawn;
}
