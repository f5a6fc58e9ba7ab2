import { readContents } from '../../lib/execution/resources';

/** The file names readContents gives the blobs of resources with these URIs. */
async function fileNamesFor(...uris: string[]): Promise<string[]> {
	const names: string[] = [];
	await readContents(
		{ contents: uris.map((uri) => ({ uri, mimeType: 'application/pdf', blob: 'JVBERi0=' })) },
		async (_data, _type, fileName) => {
			names.push(fileName);
			return `binary_${names.length}`;
		},
	);
	return names;
}

describe('readContents', () => {
	it("names a blob after its URI's last part, decoded, or as written when that is not valid percent-encoding", async () => {
		expect(
			await fileNamesFor(
				'file:///reports/my%20report.pdf',
				'file:///reports/growth-100%.pdf',
				'db://reports/42',
			),
		).toEqual(['my report.pdf', 'growth-100%.pdf', 'resource.pdf']);
	});
});
