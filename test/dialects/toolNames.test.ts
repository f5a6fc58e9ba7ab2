import { buildToolNameMap, type ToolNameRule } from '../../lib/dialects/toolNames';
import { geminiNameRule as gemini } from '../../lib/dialects/gemini/names';
import { openaiNameRule as openai, openaiToolNames } from '../../lib/dialects/openai/names';

function roundTrips(names: string[], rule: ToolNameRule): void {
	const map = buildToolNameMap(names, rule);
	const vendorNames = names.map((name) => map.toVendor(name));
	expect(new Set(vendorNames).size).toBe(new Set(names).size);
	for (const [i, name] of names.entries()) {
		const vendorName = vendorNames[i];
		expect(map.fromVendor(vendorName)).toBe(name);
		expect(vendorName.length).toBeGreaterThan(0);
		expect(vendorName.length).toBeLessThanOrEqual(rule.maxLength);
		expect([...vendorName].every((char) => rule.allowed.test(char))).toBe(true);
		if (rule.first) expect(rule.first.test(vendorName[0])).toBe(true);
	}
}

describe('buildToolNameMap', () => {
	it('passes legal names through unchanged', () => {
		const map = openaiToolNames(['get_weather', 'search-web', 'A1']);
		expect(['get_weather', 'search-web', 'A1'].map(map.toVendor)).toEqual([
			'get_weather',
			'search-web',
			'A1',
		]);
		expect(map.fromVendor('get_weather')).toBe('get_weather');
	});

	it('replaces illegal characters', () => {
		const map = openaiToolNames(['math.mul', 'files/read text', 'météo']);
		expect(map.toVendor('math.mul')).toBe('math_mul');
		expect(map.toVendor('files/read text')).toBe('files_read_text');
		expect(map.toVendor('météo')).toBe('m_t_o');
		expect(map.fromVendor('math_mul')).toBe('math.mul');
		expect(map.fromVendor('m_t_o')).toBe('météo');
	});

	it('replaces a character outside the BMP with one underscore', () => {
		expect(openaiToolNames(['rocket🚀']).toVendor('rocket🚀')).toBe('rocket_');
	});

	it('keeps a legal name and moves the repaired one that would take it', () => {
		const map = openaiToolNames(['math.mul', 'math_mul']);
		expect(map.toVendor('math_mul')).toBe('math_mul');
		expect(map.toVendor('math.mul')).toBe('math_mul_2');
		expect(map.fromVendor('math_mul_2')).toBe('math.mul');
	});

	it('settles clashes between repaired names by sorted name, whatever the order given', () => {
		const forward = openaiToolNames(['a.b', 'a:b', 'a b']);
		const backward = openaiToolNames(['a b', 'a:b', 'a.b']);
		for (const map of [forward, backward]) {
			expect(['a b', 'a.b', 'a:b'].map(map.toVendor)).toEqual(['a_b', 'a_b_2', 'a_b_3']);
		}
	});

	it('shortens long names with a stable hash of the original name', () => {
		const long = `server.${'x'.repeat(80)}`;
		const map = openaiToolNames([long]);
		const vendorName = map.toVendor(long);
		expect(vendorName).toHaveLength(64);
		expect(vendorName).toMatch(/^server_x{48}_[0-9a-f]{8}$/);
		expect(openaiToolNames([long]).toVendor(long)).toBe(vendorName);
		expect(map.fromVendor(vendorName)).toBe(long);
	});

	it('keeps two long names with one prefix apart', () => {
		const a = `${'p'.repeat(70)}_alpha`;
		const b = `${'p'.repeat(70)}_beta`;
		const map = openaiToolNames([a, b]);
		expect(map.toVendor(a)).not.toBe(map.toVendor(b));
		roundTrips([a, b], openai);
	});

	it('puts an underscore before a first character the vendor refuses', () => {
		const map = buildToolNameMap(['1password.get', 'ok.name', '-dash'], gemini);
		expect(map.toVendor('1password.get')).toBe('_1password.get');
		expect(map.toVendor('ok.name')).toBe('ok.name');
		expect(map.toVendor('-dash')).toBe('_-dash');
		expect(map.fromVendor('_1password.get')).toBe('1password.get');
	});

	it('gives the empty name a legal vendor name', () => {
		const map = openaiToolNames(['']);
		expect(map.toVendor('')).toBe('_');
		expect(map.fromVendor('_')).toBe('');
	});

	it('maps an unknown vendor name back to itself', () => {
		const map = openaiToolNames(['math.mul']);
		expect(map.fromVendor('no_such_tool')).toBe('no_such_tool');
		expect(map.fromVendor('math.mul')).toBe('math.mul');
	});

	it('still makes a name outside the map legal', () => {
		const map = openaiToolNames(['a']);
		expect(map.toVendor('gone.tool')).toBe('gone_tool');
		expect(map.toVendor('b')).toBe('b');
	});

	it('ignores repeated names', () => {
		const map = openaiToolNames(['x.y', 'x.y']);
		expect(map.toVendor('x.y')).toBe('x_y');
	});

	it('round-trips a crowd of awkward names for each rule', () => {
		const names = [
			'math.mul',
			'math_mul',
			'math:mul',
			'math mul',
			'math-mul',
			'',
			'_',
			'__',
			'9lives',
			'ünïcödé',
			'a'.repeat(64),
			'a'.repeat(65),
			'a'.repeat(200),
			`${'a'.repeat(64)}.`,
			'x'.repeat(129),
			'fs/read_file',
			'fs.read_file',
			'a_b_2',
			'a.b',
			'a:b',
		];
		roundTrips(names, openai);
		roundTrips(names, gemini);
		roundTrips(names, { allowed: /[a-z0-9_]/, maxLength: 12 });
	});
});
