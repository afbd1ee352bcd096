// The order jest runs test files in: slowest first, as jest orders them once it has timed them itself. A checkout
// jest has never run in (CI's, every time) has no timings of its own, and jest's fallback, larger files first, kept
// the cores idle: the same suite took 900 s against 716–798 s in place, for the same CPU time. So the wall times of
// one full run are committed (durations.json: seconds, by project and file), and jest's own come first where it has
// them. A file missing from it runs first, as jest runs a file it has not timed; a stale entry only orders a file
// worse. Made from each file's wall time in a full in-place run of 2026-11-30 (622 s); `npm run test:durations`
// runs the suite and writes them again (durations-reporter.cjs).
const path = require('node:path');
const TestSequencer = require('@jest/test-sequencer').default;
const durations = require('./durations.json');
const { groupsOf, groupNumber } = require('./groups.cjs');

class DurationSequencer extends TestSequencer {
  time(test) {
    const own = super.time(test);
    if (own != null) return own;
    const { displayName, rootDir } = test.context.config;
    const project = typeof displayName === 'string' ? displayName : displayName?.name;
    const file = path.relative(rootDir, test.path);
    // A group of the api suite's files (groups.cjs) takes about what its members took alone.
    const seconds = file.startsWith('test/groups/') ? groupsOf(project)[groupNumber(file) - 1].seconds : durations[`${project} ${file}`];
    return seconds == null ? undefined : seconds * 1000;
  }
}

module.exports = DurationSequencer;
