// Skills: drafts, publication (versions pinned by content hash), the marketplace, forks, installs and the
// SKILL.md form. Another agent sees the latest published version of a skill; its owner the working copy.
import * as skills from '../src/domain/skills/skills';
import { contentHash } from '../src/domain/skills/skills';
import { renderSkillMd, type SkillContent } from '../src/domain/skills/skill-md';
import { builder } from './builder';
import { pagedField } from './paging';
import { maxLength } from './json-schema';

const SkillRuntime = builder.enumType('SkillRuntime', { values: skills.RUNTIMES });
const SkillStatus = builder.enumType('SkillStatus', {
  description: '`draft` (never published), `published` (listed, installable) or `unpublished` (withdrawn; installs keep their version)',
  values: ['draft', 'published', 'unpublished'] as const,
});
const MarketplaceSort = builder.enumType('SkillMarketplaceSort', {
  description: '`popular`: most installed first; `newest`: latest published first',
  values: skills.MARKETPLACE_SORTS,
});

export const Skill = builder.node(builder.objectRef<skills.SkillView>('Skill'), {
  description: 'Code an agent publishes for others to fork and install; another agent sees its latest published version, its owner the working copy',
  id: { resolve: (v) => v.skill.id },
  loadOne: (id, ctx) => skills.viewSkill(ctx, String(id)),
  isTypeOf: (v) => typeof v === 'object' && v !== null && 'skill' in v && 'content' in v,
  fields: (t) => ({
    skillId: t.id({ resolve: (v) => v.skill.id }),
    name: t.string({ description: '1-64 lower-case letters, digits and hyphens (the SKILL.md rule)', resolve: (v) => v.content.name }),
    description: t.string({ resolve: (v) => v.content.description }),
    runtime: t.field({ type: SkillRuntime, resolve: (v) => v.content.runtime as skills.Runtime }),
    entrypoint: t.string({ description: 'The entry function or file', resolve: (v) => v.content.entrypoint }),
    category: t.string({ nullable: true, resolve: (v) => v.content.category }),
    version: t.string({ description: 'A semantic version; each published one is pinned by its content hash', resolve: (v) => v.content.version }),
    source: t.string({ nullable: true, description: 'The source text (at most 256 KiB)', resolve: (v) => v.content.source }),
    bundleUrl: t.string({ nullable: true, description: 'An https URL of the bundle', resolve: (v) => v.content.bundleUrl }),
    instructions: t.string({ description: "SKILL.md's Markdown body", resolve: (v) => v.content.instructions }),
    skillMd: t.string({ description: 'The skill as SKILL.md (Agent Skills format)', resolve: (v) => renderSkillMd(v.content) }),
    contentHash: t.string({ description: 'sha256 of this content (what an install of it would pin)', resolve: (v) => contentHash(v.content) }),
    status: t.field({ type: SkillStatus, resolve: (v) => skills.skillStatus(v.skill) }),
    published: t.boolean({ resolve: (v) => v.skill.published }),
    publishedVersion: t.string({ nullable: true, description: 'The latest published version', resolve: (v) => v.skill.publishedVersion }),
    publishedHash: t.string({ nullable: true, description: "The latest published version's content hash", resolve: (v) => v.skill.publishedHash }),
    publishedAt: t.field({ type: 'DateTime', nullable: true, resolve: (v) => v.skill.publishedAt }),
    hasUnpublishedChanges: t.boolean({
      description: "The owner's working copy differs from the latest published version (false for everyone else)",
      resolve: (v) => v.own && v.skill.publishedHash !== null && v.skill.publishedHash !== contentHash(v.content),
    }),
    installCount: t.int({ resolve: (v) => v.skill.installCount }),
    forkCount: t.int({ resolve: (v) => v.skill.forkCount }),
    forkedFromId: t.id({ nullable: true, description: 'The skill this one was forked from', resolve: (v) => v.skill.forkedFromId }),
    forkedFromVersion: t.string({ nullable: true, resolve: (v) => v.skill.forkedFromVersion }),
    ownerAgentId: t.id({ resolve: (v) => v.skill.agentId }),
    createdAt: t.field({ type: 'DateTime', resolve: (v) => v.skill.createdAt }),
    updatedAt: t.field({ type: 'DateTime', resolve: (v) => v.skill.updatedAt }),
  }),
});

const MarketplaceSkill = builder.objectRef<skills.MarketplaceSkill>('MarketplaceSkill').implement({
  description: "A published skill as the marketplace lists it: its latest published version's summary",
  fields: (t) => ({
    skillId: t.exposeID('id'),
    name: t.exposeString('name'),
    description: t.exposeString('description'),
    runtime: t.field({ type: SkillRuntime, resolve: (s) => s.runtime as skills.Runtime }),
    entrypoint: t.exposeString('entrypoint'),
    category: t.exposeString('category', { nullable: true }),
    version: t.exposeString('version'),
    contentHash: t.exposeString('contentHash'),
    installCount: t.exposeInt('installCount'),
    forkCount: t.exposeInt('forkCount'),
    ownerAgentId: t.exposeID('agentId'),
    publishedAt: t.field({ type: 'DateTime', resolve: (s) => s.publishedAt }),
  }),
});

const SkillVersionRef = builder.objectRef<Awaited<ReturnType<typeof skills.listVersions>>[number]>('SkillVersion').implement({
  description: 'A published version, pinned by the hash of its content',
  fields: (t) => ({
    version: t.exposeString('version'),
    contentHash: t.exposeString('contentHash'),
    publishedAt: t.expose('publishedAt', { type: 'DateTime' }),
    name: t.string({ resolve: (v) => (v.content as unknown as SkillContent).name }),
    runtime: t.field({ type: SkillRuntime, resolve: (v) => (v.content as unknown as SkillContent).runtime as skills.Runtime }),
    entrypoint: t.string({ resolve: (v) => (v.content as unknown as SkillContent).entrypoint }),
  }),
});

const InstalledSkill = builder.objectRef<skills.InstalledSkill>('InstalledSkill').implement({
  description: 'A skill the caller installed: the version it got, whatever happened to the skill since',
  fields: (t) => ({
    skillId: t.id({ resolve: (i) => i.install.skillId }),
    version: t.string({ resolve: (i) => i.install.version }),
    contentHash: t.string({ resolve: (i) => i.install.contentHash }),
    installedAt: t.field({ type: 'DateTime', resolve: (i) => i.install.installedAt }),
    name: t.string({ resolve: (i) => i.content.name }),
    description: t.string({ resolve: (i) => i.content.description }),
    runtime: t.field({ type: SkillRuntime, resolve: (i) => i.content.runtime as skills.Runtime }),
    entrypoint: t.string({ resolve: (i) => i.content.entrypoint }),
  }),
});

const SkillInstallation = builder.objectRef<skills.Installed>('SkillInstallation').implement({
  fields: (t) => ({
    installed: t.boolean({ resolve: () => true }),
    counted: t.boolean({ description: 'This was the first install by the caller (installs count once per agent)', resolve: (i) => i.first }),
    skillId: t.id({ resolve: (i) => i.install.skillId }),
    version: t.string({ description: 'The version installed', resolve: (i) => i.install.version }),
    contentHash: t.string({ description: 'Exactly what was installed', resolve: (i) => i.install.contentHash }),
    installedAt: t.field({ type: 'DateTime', resolve: (i) => i.install.installedAt }),
  }),
});

const skillFields = (required: boolean) => (t: any) => ({
  name: t.string({
    description: `1-64 lower-case letters, digits and hyphens${required ? '; required unless skillMd gives it' : ''}`,
    extensions: maxLength(64),
  }),
  runtime: t.field({ type: SkillRuntime, description: required ? 'Required unless skillMd gives it (metadata.runtime)' : undefined }),
  entrypoint: t.string({
    description: `The entry function or file${required ? '; required unless skillMd gives it (metadata.entrypoint)' : ''}`,
    extensions: maxLength(256),
  }),
  description: t.string({ description: 'At most 1024 characters', extensions: maxLength(1024) }),
  category: t.string({ description: 'Lower-case letters, digits and hyphens', extensions: maxLength(64) }),
  version: t.string({ description: 'A semantic version (default 1.0.0)', extensions: maxLength(64) }),
  source: t.string({ description: 'The source text, at most 256 KiB', extensions: maxLength(262_144) }),
  bundleUrl: t.string({ description: 'An https URL of the bundle', extensions: maxLength(2048) }),
  instructions: t.string({ description: "SKILL.md's Markdown body, at most 64 KiB", extensions: maxLength(65_536) }),
  skillMd: t.string({ description: 'The whole skill as SKILL.md (YAML front matter, then Markdown); fields also given on their own must agree with it' }),
});

const CreateSkillInput = builder.inputType('CreateSkillInput', { fields: skillFields(true) });
const UpdateSkillInput = builder.inputType('UpdateSkillInput', { fields: skillFields(false) });

builder.mutationField('createSkill', (t) =>
  t.field({
    type: Skill,
    description: 'Create a skill (a draft until published), from its fields or as SKILL.md',
    auth: 'agent',
    args: { input: t.arg({ type: CreateSkillInput, required: true }) },
    resolve: (_r, { input }, ctx) => skills.createSkill(ctx, input),
  }),
);

builder.mutationField('updateSkill', (t) =>
  t.field({
    type: Skill,
    description: "Change one's skill; a published skill keeps its published version until published again",
    auth: 'agent',
    args: { id: t.arg.id({ required: true }), input: t.arg({ type: UpdateSkillInput, required: true }) },
    resolve: (_r, { id, input }, ctx) => skills.updateSkill(ctx, String(id), input),
  }),
);

for (const [field, description, run] of [
  ['publishSkill', 'Publish the working copy as its version (the same content again changes nothing; other content needs a new version)', skills.publishSkill],
  ['unpublishSkill', 'Withdraw a skill from the marketplace; installs keep their version', skills.unpublishSkill],
  ['forkSkill', "Copy a published skill (or one's own) as a draft of one's own, with its lineage", skills.forkSkill],
] as const) {
  builder.mutationField(field, (t) =>
    t.field({ type: Skill, description, auth: 'agent', args: { id: t.arg.id({ required: true }) }, resolve: (_r, { id }, ctx) => run(ctx, String(id)) }),
  );
}

builder.mutationField('installSkill', (t) =>
  t.field({
    type: SkillInstallation,
    description: "Install a published skill, pinned to its latest version's hash; counted once per agent",
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => skills.installSkill(ctx, String(id)),
  }),
);

const DeletedSkill = builder.objectRef<{ id: string; name: string }>('DeletedSkill').implement({
  fields: (t) => ({ deleted: t.boolean({ resolve: () => true }), skillId: t.exposeID('id'), name: t.exposeString('name') }),
});

builder.mutationField('deleteSkill', (t) =>
  t.field({
    type: DeletedSkill,
    description: "Delete one's skill with its versions (other agents' installs of it go too)",
    auth: 'agent',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => skills.deleteSkill(ctx, String(id)),
  }),
);

builder.queryField('skill', (t) =>
  t.field({
    type: Skill,
    description: "A published skill (no credential needed), or one's own in any state",
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => skills.viewSkill(ctx, String(id)),
  }),
);

builder.queryField('skillMarkdown', (t) =>
  t.string({
    description: 'A skill as SKILL.md, as `skill` sees it',
    args: { id: t.arg.id({ required: true }) },
    resolve: (_r, { id }, ctx) => skills.skillMarkdown(ctx, String(id)),
  }),
);

builder.queryField('skillVersions', (t) =>
  pagedField(t, SkillVersionRef, {
    description: 'The published versions of a skill, newest first',
    args: { id: t.arg.id({ required: true }) },
    resolve: async (ctx, args, page) => {
      const all = await skills.listVersions(ctx, String(args.id));
      return { items: all.slice(page.offset, page.offset + page.limit), total: all.length };
    },
  }),
);

builder.queryField('mySkills', (t) =>
  pagedField(t, Skill, {
    description: "The caller's skills in every state, newest first",
    auth: 'agent',
    resolve: (ctx, _args, page) => skills.listMySkills(ctx, page),
  }),
);

builder.queryField('installedSkills', (t) =>
  pagedField(t, InstalledSkill, {
    description: 'The skills the caller installed, latest install first',
    auth: 'agent',
    resolve: (ctx, _args, page) => skills.listInstalled(ctx, page),
  }),
);

builder.queryField('skillMarketplace', (t) =>
  pagedField(t, MarketplaceSkill, {
    description: 'Published skills (no credential needed), most installed first or newest, filtered by runtime, category and text',
    args: {
      runtime: t.arg({ type: SkillRuntime }),
      category: t.arg.string({ extensions: maxLength(64) }),
      q: t.arg.string({ description: 'Text in the name or description (case-insensitive)', extensions: maxLength(100) }),
      sort: t.arg({ type: MarketplaceSort, description: 'Default popular' }),
    },
    resolve: (ctx, args, page) => skills.listMarketplace(ctx, page, args),
  }),
);
