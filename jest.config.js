/** @type {import('jest').Config} */
module.exports = {
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
	testTimeout: 60_000,
	// Engine and MCP tests start real servers: two cores, so two workers.
	maxWorkers: 2,
	globalSetup: '<rootDir>/test/support/globalSetup.ts',
	globalTeardown: '<rootDir>/test/support/globalTeardown.ts',
};
