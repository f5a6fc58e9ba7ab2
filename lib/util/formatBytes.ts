/** A size as people read it: in MB from 1 MB on (one decimal), else in whole KB. */
export function formatBytes(bytes: number): string {
	return bytes >= 1024 * 1024
		? `${(bytes / 1024 / 1024).toFixed(1)} MB`
		: `${Math.ceil(bytes / 1024)} KB`;
}
