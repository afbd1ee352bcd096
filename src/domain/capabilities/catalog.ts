// The capability catalog: the 33 identifiers of spec §1 in six groups, extended by the slugs services
// declare (group `community`, under a catalog parent when the slug refines one: `summarize.legal`).
import type { Prisma } from '../../db/generated/prisma/client';
import type { DbTx } from '../../db/database';
import type { Ctx, Services } from '../context';

export const CATALOG: Record<string, [slug: string, description: string][]> = {
  nlp: [
    ['summarize', 'Condense a text to its main points'],
    ['translate', 'Translate text between languages'],
    ['sentiment', 'Judge the sentiment of a text'],
    ['classify', 'Put a text into given categories'],
    ['code-review', 'Review source code for defects and style'],
    ['code-explain', 'Explain what source code does'],
    ['document-draft', 'Draft a document from an outline'],
    ['content-rewrite', 'Rewrite content for tone or audience'],
    ['research-synthesize', 'Synthesize findings from several sources'],
    ['research-compare', 'Compare sources or options'],
    ['arabic-cultural', 'Cultural context for Arabic content'],
    ['arabic-poetry', 'Compose or analyse Arabic poetry'],
    ['agent-vibe', "Describe an agent's tone and personality"],
  ],
  web_automation: [
    ['web-browse', 'Fetch and read a web page'],
    ['web-extract', 'Extract structured data from a page'],
    ['web-monitor', 'Watch a page for changes'],
    ['web-research', 'Research a topic across the web'],
  ],
  radio: [
    ['social-broadcast', 'Broadcast a message to a social channel'],
    ['social-listen', 'Listen to a social channel'],
    ['social-respond', 'Respond on a social channel'],
    ['social-digest', 'Digest a social channel'],
    ['social-trending', 'What is trending on a social channel'],
    ['radio-caller-profile', "A radio caller's profile"],
    ['radio-leaderboard', 'The radio leaderboard'],
    ['radio-agent-followers', "An agent's radio followers"],
  ],
  security: [
    ['skill-audit', 'Audit a skill for unsafe behaviour'],
    ['trust-score', "An agent's trust score from its record"],
  ],
  books: [
    ['partner-books-discover', 'Discover collaborative books'],
    ['partner-books-contribute', 'Contribute to a collaborative book'],
  ],
  ticketing: [
    ['support-ticket', 'Open a support ticket'],
    ['ticket-status', "A ticket's status"],
    ['ticket-comment', 'Comment on a ticket'],
    ['ticket-list', 'List tickets'],
  ],
};

export const COMMUNITY_GROUP = 'community';
export const GROUP_NAMES: Record<string, string> = {
  nlp: 'Natural language',
  web_automation: 'Web automation',
  radio: 'Social radio',
  security: 'Security',
  books: 'Books',
  ticketing: 'Ticketing',
  community: 'Declared by services',
};

export const CAPABILITY_SLUG = /^[a-z0-9][a-z0-9-]*(\.[a-z0-9][a-z0-9-]*)*$/;

function titleOf(slug: string): string {
  return slug
    .split(/[.-]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join(' ');
}

/** Writes the built-in catalog (idempotent; run at start-up). */
export async function ensureCatalog(services: Pick<Services, 'db' | 'sql'>): Promise<void> {
  const rows: Prisma.CapabilityCreateManyInput[] = Object.entries(CATALOG).flatMap(([group, items]) =>
    items.map(([slug, description]) => ({ slug, name: titleOf(slug), group, description, builtin: true })),
  );
  // Every start but the first finds them all: one read rather than an insert of every row that skips them.
  const [{ n }] = await services.sql.query<{ n: number }>('SELECT count(*)::int AS n FROM capabilities WHERE slug = ANY($1::text[])', [
    rows.map((r) => r.slug),
  ]);
  if (n === rows.length) return;
  await services.db.capability.createMany({ data: rows, skipDuplicates: true });
}

/** Adds the slugs a service declares that the catalog does not know yet. */
export async function declareCapabilities(db: DbTx, slugs: string[]): Promise<void> {
  if (slugs.length === 0) return;
  const known = new Set((await db.capability.findMany({ where: { slug: { in: slugs } }, select: { slug: true } })).map((c) => c.slug));
  const fresh = slugs.filter((s) => !known.has(s));
  if (fresh.length === 0) return;
  const parents = new Set(
    (await db.capability.findMany({ where: { slug: { in: fresh.map((s) => s.split('.')[0]) } }, select: { slug: true } })).map((c) => c.slug),
  );
  await db.capability.createMany({
    data: fresh.map((slug) => {
      const root = slug.split('.')[0];
      return { slug, name: titleOf(slug), group: COMMUNITY_GROUP, parentSlug: root !== slug && parents.has(root) ? root : null };
    }),
    skipDuplicates: true,
  });
}

export interface CapabilityListing {
  slug: string;
  name: string;
  group: string;
  parentSlug: string | null;
  description: string | null;
  builtin: boolean;
  serviceCount: number;
}

/** Every capability with how many active services offer it, and the group hierarchy. */
export async function listCapabilities(ctx: Ctx): Promise<{ capabilities: CapabilityListing[]; groups: { group: string; name: string; slugs: string[] }[] }> {
  const [capabilities, counts] = await Promise.all([
    ctx.db.capability.findMany({ orderBy: [{ builtin: 'desc' }, { group: 'asc' }, { slug: 'asc' }] }),
    ctx.services.sql.query<{ slug: string; count: number }>(
      `SELECT c AS slug, count(*)::int AS count FROM services s JOIN agents a ON a.id = s.agent_id, unnest(s.capabilities) c
       WHERE s.status = 'active' AND a.status = 'ACTIVE' GROUP BY c`,
      [],
    ),
  ]);
  const bySlug = new Map(counts.map((c) => [c.slug, c.count]));
  const listing = capabilities.map((c) => ({ ...c, serviceCount: bySlug.get(c.slug) ?? 0 }));
  const order = [...Object.keys(CATALOG), COMMUNITY_GROUP];
  const groups = order
    .map((group) => ({ group, name: GROUP_NAMES[group], slugs: listing.filter((c) => c.group === group).map((c) => c.slug) }))
    .filter((g) => g.slugs.length > 0);
  return { capabilities: listing, groups };
}
