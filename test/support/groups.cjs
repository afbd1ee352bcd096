// The api suite's files run in groups when the whole suite runs (jest.config.js): a group is one jest test file
// (test/groups/NN.test.ts) that runs its members one after another, each in a describe of its own named by its
// path, so their hooks keep to it and each starts and closes its own server and database as alone. The members
// share one module registry, so the server's modules are loaded and its schema built once per group rather than
// once per file (docs/operations.md, The suite's time). A file selected by path (--testPathPatterns) runs alone.
const fs = require('node:fs');
const path = require('node:path');

const ROOT = path.join(__dirname, '..', '..');
/** Where the groups' members are: the api suite and the spec's sentences. */
const MEMBER_DIRS = ['test/api', 'test/spec'];
/** How many groups there are: test/groups holds one file for each. */
const GROUPS = 12;
/** A file without a recorded duration counts as this many seconds. */
const UNTIMED_S = 6;

function members() {
  const out = [];
  for (const dir of MEMBER_DIRS) {
    const walk = (rel) => {
      for (const entry of fs.readdirSync(path.join(ROOT, rel), { withFileTypes: true })) {
        const file = `${rel}/${entry.name}`;
        if (entry.isDirectory()) walk(file);
        else if (entry.name.endsWith('.test.ts')) out.push(file);
      }
    };
    walk(dir);
  }
  return out.sort();
}

/**
 * The project's members in GROUPS groups of about equal time: the slowest first, each to the group with the least
 * so far (by test/support/durations.json, the project's own timings of each file run alone).
 */
function groupsOf(project) {
  const durations = JSON.parse(fs.readFileSync(path.join(__dirname, 'durations.json'), 'utf8'));
  const timed = members().map((file) => ({ file, seconds: durations[`${project} ${file}`] ?? UNTIMED_S }));
  timed.sort((a, b) => b.seconds - a.seconds || (a.file < b.file ? -1 : 1));
  const groups = Array.from({ length: GROUPS }, () => ({ files: [], seconds: 0 }));
  for (const { file, seconds } of timed) {
    const least = groups.reduce((min, g) => (g.seconds < min.seconds ? g : min));
    least.files.push(file);
    least.seconds += seconds;
  }
  return groups;
}

/** The group a file of test/groups runs (its number, from 1). */
function groupNumber(file) {
  const n = Number(/^(\d+)\.test\.ts$/.exec(path.basename(file))?.[1]);
  if (!Number.isInteger(n) || n < 1 || n > GROUPS) throw new Error(`${file} is not a group file (01 to ${GROUPS}.test.ts)`);
  return n;
}

module.exports = { ROOT, GROUPS, groupsOf, groupNumber };
