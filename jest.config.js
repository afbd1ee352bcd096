// Jest projects: unit; api on a fresh embedded PGlite per file; the same api suite on PostgreSQL when
// DATABASE_URL is set; the cluster suite (two instances on one PostgreSQL and Redis) when REDIS_URL is too.
const swc = ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }];

const base = {
  // jest's node environment, with what a worker's files share (test/support/environment.ts).
  testEnvironment: '<rootDir>/test/support/environment.ts',
  transform: { '^.+\\.(t|j|mj|cj)s$': swc },
  // ESM-only packages are compiled to CommonJS for jest's module system.
  transformIgnorePatterns: ['/node_modules/(?!(@prisma/schema-engine-wasm|@electric-sql|@seriousme|jose|pkce-challenge)/)'],
  moduleFileExtensions: ['ts', 'js', 'mjs', 'cjs', 'json'],
};

// The api suite and the spec's own sentences (test/spec: one file per spec area, each test named by its
// section), both run on each database: in groups of files when the whole suite runs (test/support/groups.cjs),
// each file alone when files are chosen by path. TEST_GROUPS=1 or 0 says which, whatever the arguments.
const API_FILES = ['<rootDir>/test/api/**/*.test.ts', '<rootDir>/test/spec/**/*.test.ts'];
const API_SUITES = grouped() ? ['<rootDir>/test/groups/*.test.ts'] : API_FILES;

/** Whether this run takes the whole suite: no file chosen by path, positionally or with a path option. */
function grouped() {
  if (process.env.TEST_GROUPS) return process.env.TEST_GROUPS === '1';
  // Options whose value follows them; --selectProjects takes every value up to the next option.
  const VALUED = new Set([
    '-c',
    '--config',
    '-t',
    '--testNamePattern',
    '-w',
    '--maxWorkers',
    '--testTimeout',
    '--outputFile',
    '--reporters',
    '--shard',
    '--seed',
  ]);
  const args = process.argv.slice(2);
  for (let i = 0, listing = false; i < args.length; i++) {
    const arg = args[i];
    if (arg.startsWith('-')) {
      listing = arg === '--selectProjects';
      if (/^--(testPathPatterns?|findRelatedTests|onlyChanged|changedSince|lastCommit|watch|watchAll)\b/.test(arg) || arg === '-o') return false;
      if (VALUED.has(arg)) i++;
    } else if (!listing) return false;
  }
  return true;
}

const projects = [
  { ...base, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
  // Whole processes (npm start) and the migration tooling, on the embedded database.
  { ...base, displayName: 'system', testMatch: ['<rootDir>/test/system/**/*.test.ts'] },
  // The web console in Debian's Chromium (CHROMIUM_PATH), against the server's own process.
  { ...base, displayName: 'browser', testMatch: ['<rootDir>/test/browser/**/*.test.ts'] },
  {
    ...base,
    displayName: 'api',
    testMatch: API_SUITES,
    globalSetup: '<rootDir>/test/support/global-setup.ts',
  },
];

if (process.env.DATABASE_URL) {
  projects.push({
    ...base,
    displayName: 'postgres',
    testMatch: API_SUITES,
    globalSetup: '<rootDir>/test/support/global-setup.ts',
    setupFiles: ['<rootDir>/test/support/use-postgres.ts'],
  });
  if (process.env.REDIS_URL) {
    projects.push({
      ...base,
      displayName: 'cluster',
      testMatch: ['<rootDir>/test/cluster/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      setupFiles: ['<rootDir>/test/support/use-postgres.ts'],
    });
  }
}

// Three workers on the CI machine's two cores: much of a test file is waiting (a server starting, a database,
// a provider), and two workers left the cores idle about a quarter of the time.
// Slowest first, from committed timings where jest has none of its own (test/support/sequencer.cjs).
module.exports = { projects, testTimeout: 30_000, maxWorkers: 3, testSequencer: '<rootDir>/test/support/sequencer.cjs' };
