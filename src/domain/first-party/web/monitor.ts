// web-monitor: the caller's snapshots of a page, and what changed since the last.
import { createHash } from 'node:crypto';
import { Checks } from '../../../platform/validate';
import type { Agent } from '../../../db/generated/prisma/client';
import type { Ctx } from '../../context';
import { readInThread } from '../web-page';
import { SNAPSHOT_MAX_BYTES, SNAPSHOTS_PER_AGENT, fetchFields, pageUrl, onField, getPage, bodyOf, clipBytes, integerOr } from './shared';

interface Snapshot {
  content_hash: string;
  title: string | null;
  content: string;
  status: number;
  taken_at: Date;
  checks: number;
}

/** Lines of `after` not matched by a line of `before` (added), and the reverse (removed), each in page order. */
export function lineChanges(before: string[], after: string[]): { added: string[]; removed: string[] } {
  const unmatched = (from: string[], against: string[]) => {
    const counts = new Map<string, number>();
    for (const line of against) counts.set(line, (counts.get(line) ?? 0) + 1);
    return from.filter((line) => {
      const left = counts.get(line) ?? 0;
      if (left > 0) counts.set(line, left - 1);
      return left === 0;
    });
  };
  return { added: unmatched(after, before), removed: unmatched(before, after) };
}

const linesOfContent = (content: string) => (content ? content.split('\n') : []);

/**
 * Writes the new snapshot and answers the one it replaced, in one statement: the old row is read locked
 * and updated together, so two checks of a page at once each compare against the one before them.
 */
async function replaceSnapshot(
  ctx: Ctx,
  agentId: string,
  url: string,
  next: { hash: string; title: string | null; content: string; status: number; etag: string | null; lastModified: string | null; at: Date },
): Promise<Snapshot | null> {
  const [old] = await ctx.db.$queryRaw<Snapshot[]>`
    UPDATE web_snapshots w SET content_hash = ${next.hash}, title = ${next.title}, content = ${next.content}, status = ${next.status},
      etag = ${next.etag}, last_modified = ${next.lastModified}, taken_at = ${next.at}, checks = w.checks + 1
    FROM (SELECT agent_id, url, content_hash, title, content, status, taken_at, checks FROM web_snapshots
          WHERE agent_id = ${agentId}::uuid AND url = ${url} FOR UPDATE) old
    WHERE w.agent_id = old.agent_id AND w.url = old.url
    RETURNING old.content_hash, old.title, old.content, old.status, old.taken_at, w.checks`;
  return old ?? null;
}

async function recordSnapshot(
  ctx: Ctx,
  agentId: string,
  url: string,
  next: Parameters<typeof replaceSnapshot>[3],
): Promise<{ previous: Snapshot | null; checks: number }> {
  const replaced = await replaceSnapshot(ctx, agentId, url, next);
  if (replaced) return { previous: replaced, checks: replaced.checks };
  const inserted = await ctx.db.$executeRaw`
    INSERT INTO web_snapshots (agent_id, url, content_hash, title, content, status, etag, last_modified, taken_at, checks)
    VALUES (${agentId}::uuid, ${url}, ${next.hash}, ${next.title}, ${next.content}, ${next.status}, ${next.etag}, ${next.lastModified}, ${next.at}, 1)
    ON CONFLICT (agent_id, url) DO NOTHING`;
  if (!inserted) {
    // Another check of the page inserted it first: compare against that one.
    const again = await replaceSnapshot(ctx, agentId, url, next);
    if (again) return { previous: again, checks: again.checks };
  }
  // A new page past the agent's bound replaces the one checked longest ago.
  await ctx.db.$executeRaw`
    DELETE FROM web_snapshots WHERE agent_id = ${agentId}::uuid AND url IN (
      SELECT url FROM web_snapshots WHERE agent_id = ${agentId}::uuid ORDER BY taken_at DESC, url OFFSET ${SNAPSHOTS_PER_AGENT})`;
  return { previous: null, checks: 1 };
}

/** A 304: the page is as the snapshot has it; only when and how often it was checked move. */
async function confirmSnapshot(ctx: Ctx, agentId: string, url: string, at: Date): Promise<Snapshot | null> {
  const [row] = await ctx.db.$queryRaw<(Snapshot & { previous_taken_at: Date })[]>`
    UPDATE web_snapshots w SET taken_at = ${at}, checks = w.checks + 1
    FROM (SELECT agent_id, url, taken_at FROM web_snapshots WHERE agent_id = ${agentId}::uuid AND url = ${url} FOR UPDATE) old
    WHERE w.agent_id = old.agent_id AND w.url = old.url
    RETURNING w.content_hash, w.title, w.content, w.status, old.taken_at AS previous_taken_at, w.checks`;
  return row ? { ...row, taken_at: row.previous_taken_at } : null;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export async function monitor(ctx: Ctx, me: Agent, input: Record<string, unknown>, signal: AbortSignal) {
  const checks = new Checks();
  const url = pageUrl(ctx, checks, 'url', input.url);
  checks.done();
  const maxLines = integerOr(input.max_lines, 50);
  // Only validators are read before the fetch; the comparison reads the snapshot as it is replaced.
  const known = await ctx.db.webSnapshot.findUnique({ where: { agentId_url: { agentId: me.id, url: url! } }, select: { etag: true, lastModified: true } });
  const conditional: Record<string, string> = {};
  if (known?.etag) conditional['if-none-match'] = known.etag;
  if (known?.lastModified) conditional['if-modified-since'] = known.lastModified;
  const page = await onField('url', () => getPage(ctx, url!, signal, conditional));
  const at = ctx.services.clock.now();

  if (page.status === 304 && known) {
    const kept = await confirmSnapshot(ctx, me.id, url!, at);
    if (kept) {
      return {
        ...fetchFields(page),
        title: kept.title,
        content_hash: kept.content_hash,
        checked_at: at.toISOString(),
        checks: kept.checks,
        first_check: false,
        changed: false,
        not_modified: true,
        previous: { taken_at: kept.taken_at.toISOString(), status: kept.status, title: kept.title, content_hash: kept.content_hash },
        changes: {
          status: null,
          title: null,
          lines_before: linesOfContent(kept.content).length,
          lines_after: linesOfContent(kept.content).length,
          lines_added: 0,
          lines_removed: 0,
          added: [],
          removed: [],
          truncated: false,
        },
        text_chars: kept.content.length,
        summary: `Not modified since ${kept.taken_at.toISOString()} (the page answered 304); ${plural(kept.checks, 'check')} so far.`,
      };
    }
  }

  const { title, lines } =
    page.status === 304 ? { title: null, lines: [] as string[] } : await onField('url', () => readInThread('lines', bodyOf(page), signal));
  const content = clipBytes(lines.join('\n'), SNAPSHOT_MAX_BYTES);
  const hash = createHash('sha256').update(content).digest('hex');
  const { previous, checks: count } = await recordSnapshot(ctx, me.id, url!, {
    hash,
    title,
    content,
    status: page.status,
    etag: page.etag,
    lastModified: page.lastModified,
    at,
  });
  const after = linesOfContent(content);
  const base = {
    ...fetchFields(page),
    title,
    content_hash: hash,
    checked_at: at.toISOString(),
    checks: count,
    not_modified: false,
    text_chars: content.length,
  };
  if (!previous) {
    return {
      ...base,
      first_check: true,
      changed: false,
      previous: null,
      changes: null,
      summary: `First snapshot of the page: ${plural(after.length, 'line')}, status ${page.status}.`,
    };
  }
  const before = linesOfContent(previous.content);
  const { added, removed } = previous.content_hash === hash ? { added: [], removed: [] } : lineChanges(before, after);
  const statusChange = previous.status !== page.status ? { from: previous.status, to: page.status } : null;
  const titleChange = previous.title !== title ? { from: previous.title, to: title } : null;
  const changed = previous.content_hash !== hash || statusChange !== null || titleChange !== null;
  const said: string[] = [];
  if (statusChange) said.push(`status ${statusChange.from} → ${statusChange.to}`);
  if (titleChange) said.push(`title ${JSON.stringify(titleChange.from)} → ${JSON.stringify(titleChange.to)}`);
  if (added.length || removed.length) said.push(`${plural(added.length, 'line')} added, ${removed.length} removed`);
  else if (previous.content_hash !== hash) said.push('the same lines in another order');
  const since = previous.taken_at.toISOString();
  return {
    ...base,
    first_check: false,
    changed,
    previous: { taken_at: since, status: previous.status, title: previous.title, content_hash: previous.content_hash },
    changes: {
      status: statusChange,
      title: titleChange,
      lines_before: before.length,
      lines_after: after.length,
      lines_added: added.length,
      lines_removed: removed.length,
      added: added.slice(0, maxLines),
      removed: removed.slice(0, maxLines),
      truncated: added.length > maxLines || removed.length > maxLines,
    },
    summary: changed ? `Changed since ${since}: ${said.join('; ')}.` : `No change since ${since}; ${plural(count, 'check')} so far.`,
  };
}
