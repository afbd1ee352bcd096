// Writes test/support/durations.json, the timings test/support/sequencer.cjs orders a fresh checkout's run by:
// each file's wall time in this run, in seconds, keyed by project and path. `npm run test:durations` runs the
// whole suite with it, each api file alone (give it DATABASE_URL, REDIS_URL and CHROMIUM_PATH, or the projects they add keep their
// old entries). Entries of files this run did not run are kept; files that no longer exist are dropped.
const fs = require('node:fs');
const path = require('node:path');

const FILE = path.join(__dirname, 'durations.json');

class DurationsReporter {
  constructor(globalConfig) {
    this.rootDir = globalConfig.rootDir;
    this.seen = {};
  }

  onTestResult(test, result) {
    const { displayName } = test.context.config;
    const project = typeof displayName === 'string' ? displayName : displayName?.name;
    const { start, end } = result.perfStats;
    // The api suite's files are timed alone (TEST_GROUPS=0): a group's time is its members' (groups.cjs).
    if (path.relative(this.rootDir, test.path).startsWith('test/groups/')) return;
    if (!result.testExecError && end > start) this.seen[`${project} ${path.relative(this.rootDir, test.path)}`] = Math.round((end - start) / 100) / 10;
  }

  onRunComplete() {
    const kept = fs.existsSync(FILE) ? JSON.parse(fs.readFileSync(FILE, 'utf8')) : {};
    const all = { ...kept, ...this.seen };
    const durations = {};
    for (const key of Object.keys(all).sort()) {
      if (fs.existsSync(path.join(this.rootDir, key.slice(key.indexOf(' ') + 1)))) durations[key] = all[key];
    }
    fs.writeFileSync(FILE, `${JSON.stringify(durations, null, 2)}\n`);
    console.log(`test/support/durations.json: ${Object.keys(this.seen).length} files timed, ${Object.keys(durations).length} kept`);
  }
}

module.exports = DurationsReporter;
