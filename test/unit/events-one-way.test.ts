// Events are written one way (src/domain/events.ts): rows of outbox_events only by its statements (eventCtes,
// in transact or spliced into a statement of one's own), announced only by announceCommitted. A second way
// would be a second place to forget the relay, the deliveries or the published mark.
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.join(__dirname, '..', '..');
const OURS = ['src', 'rest', 'graphql', 'protocols', 'schema', 'app'];

function sources(dir: string): string[] {
  if (!fs.existsSync(dir)) return [];
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) return e.name === 'generated' ? [] : sources(full);
    return /\.(ts|cjs)$/.test(e.name) ? [full] : [];
  });
}

it('writes and announces events only through src/domain/events.ts', () => {
  const elsewhere = OURS.flatMap((d) => sources(path.join(ROOT, d)))
    .filter((f) => !f.endsWith(path.join('src', 'domain', 'events.ts')) && !f.endsWith(path.join('src', 'platform', 'outbox.ts')))
    .filter((f) => /INSERT INTO outbox_events|outbox\.committed\(/.test(fs.readFileSync(f, 'utf8')))
    .map((f) => path.relative(ROOT, f));
  expect(elsewhere).toEqual([]);
});
