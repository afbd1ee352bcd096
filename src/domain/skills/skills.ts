// Skills (spec §2 Skill, §3, §4.9): code an agent writes once and others fork or install. A skill is a
// draft until its owner publishes it; each publication is a version pinned by the hash of its content, so
// an install names exactly what it got. The marketplace lists published skills without a credential.
import { createHash } from 'node:crypto';
import type { DbTx } from '../../db/database';
import type { Prisma, Skill, SkillInstall, SkillVersion } from '../../db/generated/prisma/client';
import { Conflict, NotFound } from '../../platform/errors';
import { isUuid } from '../../platform/ids';
import { assertMove, type Moves } from '../../platform/state-machine';
import { Checks } from '../../platform/validate';
import { page as pageOf, type Page } from '../../platform/page';
import { requireAgent } from '../agents/principal';
import { recordAudit, recordStateChange } from '../audit/audit';
import type { Ctx } from '../context';
import { parseSkillMd, renderSkillMd, type SkillContent, type SkillMdFields } from './skill-md';

export const RUNTIMES = ['python', 'nodejs', 'deno', 'wasm', 'docker'] as const;
export type Runtime = (typeof RUNTIMES)[number];

/** A skill is a draft, published (listed, installable), or unpublished (withdrawn; installs keep their version). */
export type SkillStatus = 'draft' | 'published' | 'unpublished';
/** Publishing a published skill again makes a new version when its content changed. */
export const SKILL_MOVES: Moves<SkillStatus> = {
  draft: ['published'],
  published: ['published', 'unpublished'],
  unpublished: ['published'],
};

/** SKILL.md's rule for a name: 1-64 lower-case letters, digits and single hyphens, not at either end. */
const SKILL_NAME = /^[a-z0-9](?:[a-z0-9]|-(?=[a-z0-9])){0,63}$/;
const VERSION = /^\d{1,9}\.\d{1,9}\.\d{1,9}(?:-[0-9A-Za-z.-]{1,32})?$/;
const CATEGORY = /^[a-z0-9][a-z0-9-]{0,63}$/;
export const SOURCE_MAX_BYTES = 256 * 1024;
const INSTRUCTIONS_MAX = 64 * 1024;
const SKILL_MD_MAX = SOURCE_MAX_BYTES + INSTRUCTIONS_MAX;

export function skillStatus(skill: Pick<Skill, 'published' | 'publishedVersion'>): SkillStatus {
  return skill.published ? 'published' : skill.publishedVersion ? 'unpublished' : 'draft';
}

export function contentOf(skill: Skill): SkillContent {
  return {
    name: skill.name,
    description: skill.description,
    runtime: skill.runtime,
    entrypoint: skill.entrypoint,
    category: skill.category,
    version: skill.version,
    source: skill.source,
    bundleUrl: skill.bundleUrl,
    instructions: skill.instructions,
    frontMatter: (skill.frontMatter ?? {}) as Record<string, unknown>,
  };
}

/** sha256 of the content as JSON with its keys in order: the same content always has the same hash. */
export function contentHash(content: SkillContent): string {
  const canonical = JSON.stringify(content, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : v,
  );
  return createHash('sha256').update(canonical).digest('hex');
}

export interface SkillInput extends SkillMdFields {
  source?: unknown;
  /** The whole skill as SKILL.md; fields also given on their own must agree with it. */
  skillMd?: unknown;
}

/** The input's fields, SKILL.md's filling what the request does not give; checked. */
function readSkill(checks: Checks, input: SkillInput, creating: boolean): Partial<SkillContent> {
  let given: SkillInput = input;
  if (input.skillMd !== undefined && input.skillMd !== null) {
    const md = checks.text('skillMd', input.skillMd, { max: SKILL_MD_MAX, multiline: true, required: true, min: 1 });
    const parsed = md ? parseSkillMd(checks, 'skillMd', md) : undefined;
    // SKILL.md that cannot be read is the one thing to fix; what it would have given is not reported missing.
    if (!parsed) return {};
    {
      given = { ...parsed, ...Object.fromEntries(Object.entries(input).filter(([, v]) => v !== undefined && v !== null)) };
      for (const key of ['name', 'description', 'runtime', 'entrypoint', 'category', 'version', 'bundleUrl'] as const) {
        if (parsed[key] !== undefined && input[key] !== undefined && input[key] !== null && String(parsed[key]) !== input[key]) {
          checks.fail(
            key,
            `differs from SKILL.md's ${key === 'bundleUrl' ? 'metadata.bundle_url' : key === 'name' || key === 'description' ? key : `metadata.${key}`}`,
          );
        }
      }
    }
  }
  const out: Partial<SkillContent> = {};
  const str = (v: unknown) => (typeof v === 'number' || typeof v === 'boolean' ? String(v) : v);
  if (creating || given.name !== undefined) {
    const name = checks.text('name', given.name, { max: 64, required: true });
    if (name && !SKILL_NAME.test(name))
      checks.fail('name', 'must be 1-64 lower-case letters, digits and single hyphens, starting and ending with a letter or digit (the SKILL.md rule)');
    out.name = name;
  }
  if (creating || given.runtime !== undefined) out.runtime = checks.oneOf('runtime', given.runtime, RUNTIMES);
  if (creating || given.entrypoint !== undefined) out.entrypoint = checks.text('entrypoint', str(given.entrypoint), { max: 256, required: true });
  if (given.description !== undefined) out.description = checks.text('description', given.description, { max: 1024, multiline: true }) ?? '';
  if (given.category !== undefined) {
    const category = given.category === null ? null : checks.text('category', str(given.category), { max: 64 });
    if (category && !CATEGORY.test(category)) checks.fail('category', 'must be 1-64 lower-case letters, digits and hyphens');
    out.category = category || null;
  }
  if (given.version !== undefined) {
    const version = checks.text('version', str(given.version), { max: 64, required: true });
    if (version && !VERSION.test(version)) checks.fail('version', 'must be a semantic version such as 1.0.0 or 2.1.0-beta.1');
    out.version = version;
  }
  if (given.source !== undefined) {
    const source = given.source === null ? null : checks.text('source', given.source, { max: SOURCE_MAX_BYTES, multiline: true });
    if (source && Buffer.byteLength(source) > SOURCE_MAX_BYTES) checks.fail('source', `must be at most ${SOURCE_MAX_BYTES / 1024} KiB`);
    out.source = source || null;
  }
  if (given.bundleUrl !== undefined) out.bundleUrl = given.bundleUrl === null ? null : (checks.httpsUrl('bundleUrl', str(given.bundleUrl), false) ?? null);
  if (given.instructions !== undefined) out.instructions = checks.text('instructions', given.instructions, { max: INSTRUCTIONS_MAX, multiline: true }) ?? '';
  if (given.frontMatter !== undefined) out.frontMatter = given.frontMatter;
  return out;
}

function uniqueName(err: unknown): boolean {
  return (err as { code?: string }).code === 'P2002';
}

export async function createSkill(ctx: Ctx, input: SkillInput): Promise<SkillView> {
  const me = await requireAgent(ctx);
  const checks = new Checks();
  const fields = readSkill(checks, input, true);
  checks.done();
  try {
    return await ctx.db.$transaction(async (tx) => {
      const skill = await tx.skill.create({
        data: { ...(fields as SkillContent), frontMatter: (fields.frontMatter ?? {}) as Prisma.InputJsonObject, agentId: me.id },
      });
      await recordAudit(tx, ctx, {
        agentId: me.id,
        action: 'skill.created',
        targetType: 'skill',
        targetId: skill.id,
        details: { name: skill.name, runtime: skill.runtime },
      });
      return ownView(skill);
    });
  } catch (err) {
    if (uniqueName(err)) throw new Conflict(`You already have a skill named ${fields.name}`);
    throw err;
  }
}

/**
 * A skill as the caller sees it: its owner, the working copy; anyone else, the latest published version
 * (a skill never published, or withdrawn, is not found).
 */
export interface SkillView {
  skill: Skill;
  content: SkillContent;
  own: boolean;
}

export async function viewSkill(ctx: Ctx, id: string, db: DbTx = ctx.db): Promise<SkillView> {
  const skill = isUuid(id) ? await db.skill.findUnique({ where: { id } }) : null;
  if (!skill) throw new NotFound('skill', id);
  const caller = await ctx.principal();
  if (caller.kind === 'agent' && caller.agent.id === skill.agentId) return { skill, content: contentOf(skill), own: true };
  const published = skill.published ? await publishedVersion(db, skill) : undefined;
  if (!published) throw new NotFound('skill', id);
  return { skill, content: published.content as unknown as SkillContent, own: false };
}

async function publishedVersion(db: DbTx, skill: Skill): Promise<SkillVersion | undefined> {
  if (!skill.publishedVersion) return undefined;
  return (await db.skillVersion.findUnique({ where: { skillId_version: { skillId: skill.id, version: skill.publishedVersion } } })) ?? undefined;
}

const ownView = (skill: Skill): SkillView => ({ skill, content: contentOf(skill), own: true });

async function ownSkill(ctx: Ctx, id: string): Promise<Skill> {
  const me = await requireAgent(ctx);
  const skill = isUuid(id) ? await ctx.db.skill.findFirst({ where: { id, agentId: me.id } }) : null;
  if (!skill) throw new NotFound('skill', id);
  return skill;
}

/** The owner changes a skill. A published skill keeps its published version until published again. */
export async function updateSkill(ctx: Ctx, id: string, input: SkillInput): Promise<SkillView> {
  const skill = await ownSkill(ctx, id);
  const checks = new Checks();
  const fields = readSkill(checks, input, false);
  checks.done();
  try {
    return await ctx.db.$transaction(async (tx) => {
      const updated = await tx.skill.update({
        where: { id: skill.id },
        data: { ...fields, frontMatter: fields.frontMatter as Prisma.InputJsonObject | undefined },
      });
      await recordAudit(tx, ctx, {
        agentId: skill.agentId,
        action: 'skill.updated',
        targetType: 'skill',
        targetId: skill.id,
        details: { changed: Object.keys(fields) },
      });
      return ownView(updated);
    });
  } catch (err) {
    if (uniqueName(err)) throw new Conflict(`You already have a skill named ${fields.name}`);
    throw err;
  }
}

/**
 * Publishes the skill's current content as its `version`, pinned by its hash: listed and installable from
 * now on. The same content published again changes nothing; other content needs a new `version` (409).
 */
export async function publishSkill(ctx: Ctx, id: string): Promise<SkillView> {
  const skill = await ownSkill(ctx, id);
  const from = skillStatus(skill);
  assertMove(SKILL_MOVES, from, 'published', 'skill');
  const content = contentOf(skill);
  const hash = contentHash(content);
  if (from === 'published' && skill.publishedHash === hash) return ownView(skill);
  const now = ctx.services.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const existing = await tx.skillVersion.findUnique({ where: { skillId_version: { skillId: skill.id, version: skill.version } } });
    if (existing && existing.contentHash !== hash) {
      throw new Conflict(`Version ${skill.version} was published with other content; give the skill a new version to publish this one`);
    }
    if (!existing)
      await tx.skillVersion.create({
        data: { skillId: skill.id, version: skill.version, contentHash: hash, content: content as unknown as Prisma.InputJsonObject, publishedAt: now },
      });
    const published = await tx.skill.update({
      where: { id: skill.id },
      data: {
        published: true,
        publishedVersion: skill.version,
        publishedHash: hash,
        publishedAt: existing?.publishedAt ?? now,
        listedName: content.name,
        listedDescription: content.description,
        listedRuntime: content.runtime,
        listedCategory: content.category,
        listedEntrypoint: content.entrypoint,
      },
    });
    await recordStateChange(tx, ctx, { subjectType: 'skill', subjectId: skill.id, from, to: 'published', note: `version ${skill.version}` });
    await recordAudit(tx, ctx, {
      agentId: skill.agentId,
      action: 'skill.published',
      targetType: 'skill',
      targetId: skill.id,
      details: { version: skill.version, content_hash: hash },
    });
    return ownView(published);
  });
}

/** Withdraws a skill from the marketplace; installs keep the version they got. */
export async function unpublishSkill(ctx: Ctx, id: string): Promise<SkillView> {
  const skill = await ownSkill(ctx, id);
  const from = skillStatus(skill);
  assertMove(SKILL_MOVES, from, 'unpublished', 'skill');
  return ctx.db.$transaction(async (tx) => {
    const updated = await tx.skill.update({ where: { id: skill.id }, data: { published: false } });
    await recordStateChange(tx, ctx, { subjectType: 'skill', subjectId: skill.id, from, to: 'unpublished' });
    await recordAudit(tx, ctx, { agentId: skill.agentId, action: 'skill.unpublished', targetType: 'skill', targetId: skill.id });
    return ownView(updated);
  });
}

/** The owner deletes a skill and its versions; other agents' installs of it go with it. */
export async function deleteSkill(ctx: Ctx, id: string): Promise<Skill> {
  const skill = await ownSkill(ctx, id);
  return ctx.db.$transaction(async (tx) => {
    await tx.skill.delete({ where: { id: skill.id } });
    await recordAudit(tx, ctx, { agentId: skill.agentId, action: 'skill.deleted', targetType: 'skill', targetId: skill.id, details: { name: skill.name } });
    return skill;
  });
}

/**
 * Forks a skill: a draft copy owned by the caller, of the published version (or of one's own skill as it
 * is), with its lineage. The copy keeps the name, or takes the first free `name-2`, `name-3`… of the caller's.
 */
export async function forkSkill(ctx: Ctx, id: string): Promise<SkillView> {
  const me = await requireAgent(ctx);
  const { skill: source, content, own } = await viewSkill(ctx, id);
  const version = own ? null : source.publishedVersion;
  return ctx.db.$transaction(async (tx) => {
    const taken = new Set(
      (await tx.skill.findMany({ where: { agentId: me.id, name: { startsWith: content.name.slice(0, 58) } }, select: { name: true } })).map((s) => s.name),
    );
    let name = content.name;
    for (let n = 2; taken.has(name); n++) name = `${content.name.slice(0, 64 - String(n).length - 1)}-${n}`;
    const fork = await tx.skill.create({
      data: {
        ...content,
        frontMatter: content.frontMatter as Prisma.InputJsonObject,
        name,
        agentId: me.id,
        forkedFromId: source.id,
        forkedFromVersion: version,
      },
    });
    await tx.skill.update({ where: { id: source.id }, data: { forkCount: { increment: 1 } } });
    await recordAudit(tx, ctx, {
      agentId: me.id,
      action: 'skill.forked',
      targetType: 'skill',
      targetId: fork.id,
      details: { forked_from: source.id, version },
    });
    return ownView(fork);
  });
}

export interface Installed {
  install: SkillInstall;
  /** False when the agent had it installed already (counted once). */
  first: boolean;
}

/**
 * Installs a published skill for the caller, pinned to its latest version's hash: counted once per agent;
 * installing again moves the pin to the latest version.
 */
export async function installSkill(ctx: Ctx, id: string): Promise<Installed> {
  const me = await requireAgent(ctx);
  const { skill } = await viewSkill(ctx, id);
  if (!skill.published || !skill.publishedVersion || !skill.publishedHash) throw new Conflict('Only a published skill can be installed; publish it first');
  const now = ctx.services.clock.now();
  return ctx.db.$transaction(async (tx) => {
    const [row] = await tx.$queryRaw<(SkillInstall & { first: boolean })[]>`
      INSERT INTO skill_installs (agent_id, skill_id, version, content_hash, installed_at)
      VALUES (${me.id}::uuid, ${skill.id}::uuid, ${skill.publishedVersion}, ${skill.publishedHash}, ${now})
      ON CONFLICT (agent_id, skill_id) DO UPDATE SET version = EXCLUDED.version, content_hash = EXCLUDED.content_hash, installed_at = EXCLUDED.installed_at
      RETURNING agent_id AS "agentId", skill_id AS "skillId", version, content_hash AS "contentHash", installed_at AS "installedAt", (xmax = 0) AS first`;
    if (row.first) await tx.skill.update({ where: { id: skill.id }, data: { installCount: { increment: 1 } } });
    await recordAudit(tx, ctx, {
      agentId: me.id,
      action: 'skill.installed',
      targetType: 'skill',
      targetId: skill.id,
      details: { version: row.version, content_hash: row.contentHash },
    });
    const { first, ...install } = row;
    return { install, first };
  });
}

export async function listMySkills(ctx: Ctx, page: Page): Promise<{ items: SkillView[]; total: number }> {
  const me = await requireAgent(ctx);
  const where = { agentId: me.id };
  const { items, total } = await pageOf(
    page,
    (q) => ctx.db.skill.findMany({ where, ...q }),
    () => ctx.db.skill.count({ where }),
  );
  return { items: items.map(ownView), total };
}

/** An install, with the content of the version it names (what the agent got, whatever happened since). */
export interface InstalledSkill {
  install: SkillInstall;
  content: SkillContent;
}

export async function listInstalled(ctx: Ctx, page: Page): Promise<{ items: InstalledSkill[]; total: number }> {
  const me = await requireAgent(ctx);
  const where = { agentId: me.id };
  const [installs, total] = await Promise.all([
    ctx.db.skillInstall.findMany({ where, orderBy: [{ installedAt: 'desc' }, { skillId: 'asc' }], skip: page.offset, take: page.limit }),
    ctx.db.skillInstall.count({ where }),
  ]);
  const versions = installs.length
    ? await ctx.db.skillVersion.findMany({ where: { OR: installs.map((i) => ({ skillId: i.skillId, version: i.version })) } })
    : [];
  const byKey = new Map(versions.map((v) => [`${v.skillId} ${v.version}`, v.content as unknown as SkillContent]));
  return { items: installs.map((install) => ({ install, content: byKey.get(`${install.skillId} ${install.version}`)! })), total };
}

/** The published versions of a skill the caller may see, newest first. */
export async function listVersions(ctx: Ctx, id: string): Promise<SkillVersion[]> {
  const { skill } = await viewSkill(ctx, id);
  return ctx.db.skillVersion.findMany({ where: { skillId: skill.id }, orderBy: { publishedAt: 'desc' } });
}

export type MarketplaceSort = 'popular' | 'newest';
export const MARKETPLACE_SORTS = ['popular', 'newest'] as const;

export interface MarketplaceFilter {
  runtime?: string | null;
  category?: string | null;
  q?: string | null;
  sort?: string | null;
}

/** A published skill as the marketplace lists it: its latest published version's summary. */
export interface MarketplaceSkill extends Pick<SkillContent, 'name' | 'description' | 'runtime' | 'entrypoint' | 'category' | 'version'> {
  id: string;
  contentHash: string;
  installCount: number;
  forkCount: number;
  agentId: string;
  publishedAt: Date;
}

/**
 * How many rows of a marketplace listing (a sort, a runtime, a category) are kept as its head while the
 * read cache is on: the first three pages of the default size. The pages within it share one read of it.
 */
export const MARKETPLACE_HEAD = 60;

/**
 * A listing's head as its statement reads it: the total, and each row as its own text, a JSON array of
 * HeadRow (parsed as the driver would parse a json value, but the rows are not).
 */
interface HeadRead {
  total: number;
  rows: string[];
}

/** A head's row: its skill's listed columns, `publishedAt` in milliseconds since the epoch. */
type HeadRow = [
  id: string,
  name: string,
  description: string,
  runtime: string,
  entrypoint: string,
  category: string | null,
  version: string,
  contentHash: string,
  installCount: number,
  forkCount: number,
  agentId: string,
  publishedAt: number | null,
];

/**
 * A listing's head as the read cache keeps it: the total, each row's text, and the rows a page took, parsed then and
 * kept. Parsed whole it was hundreds of objects for the garbage collector to copy and trace until they expired; it is
 * weighed by the text it was read as rather than by serializing it again (docs/discovery.md, What is kept, and how).
 */
interface KeptHead {
  total: number;
  rows: string[];
  skills: (MarketplaceSkill | undefined)[];
}

/** The head's i-th skill, parsed from its row on first use. */
function skillAt(head: KeptHead, i: number): MarketplaceSkill {
  let skill = head.skills[i];
  if (!skill) {
    const [id, name, description, runtime, entrypoint, category, version, contentHash, installCount, forkCount, agentId, publishedAt] = JSON.parse(
      head.rows[i],
    ) as HeadRow;
    skill = {
      id,
      name,
      description,
      runtime,
      entrypoint,
      category,
      version,
      contentHash,
      installCount,
      forkCount,
      agentId,
      publishedAt: publishedAt === null ? (null as unknown as Date) : new Date(publishedAt),
    };
    head.skills[i] = skill;
  }
  return skill;
}

/**
 * Published skills, most installed first (or newest), filtered by runtime, category and text: one driver statement (a
 * hot public read), named per filter shape so each is planned once. Rows come from an index in that order; `total` is
 * one row of `skill_listing_counts`, or a count when searching text.
 */
export async function listMarketplace(ctx: Ctx, page: Page, filter: MarketplaceFilter): Promise<{ items: MarketplaceSkill[]; total: number }> {
  const checks = new Checks();
  const runtime = filter.runtime === undefined || filter.runtime === null ? undefined : checks.oneOf('runtime', filter.runtime, RUNTIMES);
  const category = checks.text('category', filter.category, { max: 64 }) || undefined;
  const q = checks.text('q', filter.q, { max: 100 }) || undefined;
  const sort = checks.oneOf('sort', filter.sort ?? undefined, MARKETPLACE_SORTS, 'popular');
  checks.done();
  const { readCache, sql } = ctx.services;
  const params: unknown[] = [page.limit, page.offset];
  const param = (value: unknown) => `$${params.push(value)}`;
  const where = ['published'];
  if (runtime) where.push(`listed_runtime = ${param(runtime)}`);
  if (category) where.push(`listed_category = ${param(category)}`);
  if (q) {
    const text = param(`%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`);
    where.push(`(listed_name ILIKE ${text} OR listed_description ILIKE ${text})`);
  }
  const order = sort === 'newest' ? 'published_at DESC, id' : 'install_count DESC, id';
  const total = q
    ? `(SELECT count(*) FROM skills WHERE ${where.join(' AND ')})::int`
    : `COALESCE((SELECT count FROM skill_listing_counts WHERE runtime = ${runtime ? '$3' : `'*'`} AND category = ${category ? (runtime ? '$4' : '$3') : `'*'`}), 0)`;
  const shape = `${runtime ? 'r' : ''}${category ? 'c' : ''}${q ? 'q' : ''}${sort === 'newest' ? 'n' : 'p'}`;
  // A page within the listing's head is cut from the head, kept once for all its pages by the read cache (a listing's
  // change notifies marketplace_changes; install counts move within the TTL): its order is total, so rows offset..
  // offset+limit are the page's. A text search, a page past the head, or the cache off reads its own page.
  if (readCache.enabled && !q && page.offset + page.limit <= MARKETPLACE_HEAD) {
    const name = `skills_head_${shape}`;
    const headParams = [MARKETPLACE_HEAD, 0, ...params.slice(2)];
    let bytes = 0;
    const head = await readCache.read(
      `${name}\n${JSON.stringify(headParams)}`,
      async (): Promise<KeptHead> => {
        const [row] = await sql.query<{ head: string }>(
          `SELECT json_build_object('total', ${total}, 'rows', (
             SELECT COALESCE(json_agg(json_build_array(id, listed_name, listed_description, listed_runtime, listed_entrypoint, listed_category,
               published_version, published_hash, install_count, fork_count, agent_id, floor(extract(epoch FROM published_at) * 1000))::text ORDER BY ${order}), '[]'::json)
             FROM (SELECT id, listed_name, listed_description, listed_runtime, listed_entrypoint, listed_category, published_version, published_hash,
                     install_count, fork_count, agent_id, published_at
                   FROM skills WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT $1 OFFSET $2) AS p))::text AS head`,
          headParams,
          name,
        );
        bytes = 2 * row.head.length;
        const read = JSON.parse(row.head) as HeadRead;
        return { total: Number(read.total), rows: read.rows, skills: new Array<MarketplaceSkill | undefined>(read.rows.length) };
      },
      () => bytes,
    );
    const items: MarketplaceSkill[] = [];
    for (let i = page.offset; i < head.rows.length && i < page.offset + page.limit; i++) items.push(skillAt(head, i));
    return { items, total: head.total };
  }
  // The total and the page's rows in one round trip: one row with the total and no skill when the page is
  // empty, kept for a moment in the read cache as the head is.
  const name = `skills_marketplace_${shape}`;
  const rows = await readCache.read(`${name}\n${JSON.stringify(params)}`, () =>
    sql.query<MarketplaceSkill & { total: number }>(
      `SELECT t.total, p.* FROM (SELECT ${total} AS total) AS t LEFT JOIN LATERAL (
         SELECT id, listed_name AS name, listed_description AS description, listed_runtime AS runtime, listed_entrypoint AS entrypoint,
           listed_category AS category, published_version AS version, published_hash AS "contentHash", install_count AS "installCount",
           fork_count AS "forkCount", agent_id AS "agentId", published_at AS "publishedAt"
         FROM skills WHERE ${where.join(' AND ')} ORDER BY ${order} LIMIT $1 OFFSET $2
       ) AS p ON true
       ORDER BY ${sort === 'newest' ? 'p."publishedAt" DESC' : 'p."installCount" DESC'}, p.id`,
      params,
      name,
    ),
  );
  const items = rows[0]?.id ? rows.map(({ total: _total, ...skill }) => skill) : [];
  return { items, total: Number(rows[0]?.total ?? 0) };
}

/** The skill as SKILL.md (what it was given as, and how it runs in `metadata`), as the caller sees it. */
export async function skillMarkdown(ctx: Ctx, id: string): Promise<string> {
  return renderSkillMd((await viewSkill(ctx, id)).content);
}
