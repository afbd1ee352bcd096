// The body of each test/groups file: its members (test/support/groups.cjs), each required inside a describe named
// by its path, so its hooks and tests keep to that describe and run as they would alone.
import path from 'node:path';
// Shared with jest.config.js and the sequencer, which are CommonJS.
const { ROOT, groupsOf, groupNumber } = require('./groups.cjs') as {
  ROOT: string;
  groupsOf(project: string): { files: string[] }[];
  groupNumber(file: string): number;
};

export function runGroup(file: string): void {
  const project = process.env.TEST_DATABASE === 'postgres' ? 'postgres' : 'api';
  const { files } = groupsOf(project)[groupNumber(file) - 1];
  if (!files.length) test.skip('this group has no members', () => undefined);
  for (const member of files)
    describe(member, () => {
      try {
        require(path.join(ROOT, member));
      } catch (err) {
        // A member that does not load fails alone, as it would as a file of its own: its group runs on.
        test('loads', () => {
          throw err;
        });
      }
    });
}
