// The Agent Skills SKILL.md format, the open format agent tools read: YAML front matter (`name`, 1-64
// lower-case letters, digits and hyphens; `description`; optional `license`, `allowed-tools`, `metadata`)
// and a Markdown body of instructions. How a skill runs travels in `metadata` (runtime, entrypoint, …).
import type * as Yaml from 'yaml';
import { onFirstUse } from '../../platform/lazy';
import { Checks } from '../../platform/validate';

/** The YAML library, loaded by the first SKILL.md read or written: a start never needs it (docs/operations.md, Start). */
export const yaml = onFirstUse(() => require('yaml') as typeof Yaml);

/** The fields of a skill that SKILL.md carries. */
export interface SkillMdFields {
  name?: unknown;
  description?: unknown;
  runtime?: unknown;
  entrypoint?: unknown;
  category?: unknown;
  version?: unknown;
  bundleUrl?: unknown;
  instructions?: unknown;
  /** Front matter this marketplace keeps without reading (license, allowed-tools, other metadata). */
  frontMatter?: Record<string, unknown>;
}

/**
 * Metadata keys the marketplace reads, by their SKILL.md spelling. A Map, as every lookup and copy of front
 * matter here avoids plain objects: the keys are the author's, and `toString` or `constructor` are keys like
 * any other (an object literal would answer them from its prototype).
 */
const READ_METADATA = new Map<string, keyof SkillMdFields>([
  ['runtime', 'runtime'],
  ['entrypoint', 'entrypoint'],
  ['category', 'category'],
  ['version', 'version'],
  ['bundle_url', 'bundleUrl'],
]);
/**
 * The one key refused: not data anyone means, and not one every layer on the way can keep (assigned, it
 * replaces an object's prototype; Prisma's JSON writer drops it), so it could not come back as given.
 */
const PROTOTYPE_KEY = '__proto__';
const REFUSED_KEY = 'is not a front matter key the marketplace keeps (every other key, toString and constructor included, is kept as given)';
const MAX_FRONT_MATTER_KEYS = 20;

/** Reads SKILL.md text into a skill's fields; every problem is reported at `path`. */
export function parseSkillMd(checks: Checks, path: string, text: string): SkillMdFields | undefined {
  const match = /^\uFEFF?---\r?\n([\s\S]*?)\r?\n---[ \t]*(?:\r?\n|$)([\s\S]*)$/.exec(text);
  if (!match) {
    checks.fail(path, 'must start with YAML front matter between --- lines (name, description), then the Markdown instructions');
    return undefined;
  }
  let front: unknown;
  try {
    front = yaml().parse(match[1], { maxAliasCount: 0, uniqueKeys: true });
  } catch (err) {
    checks.fail(path, `has front matter that is not valid YAML: ${(err as Error).message.split('\n')[0]}`);
    return undefined;
  }
  if (!front || typeof front !== 'object' || Array.isArray(front)) {
    checks.fail(path, 'must have front matter that is a YAML mapping');
    return undefined;
  }
  // The YAML library defines every key as an own property (`__proto__` included), so entries see them all.
  const { name, description, metadata, ...rest } = front as Record<string, unknown>;
  const fields: SkillMdFields = { name, description, instructions: match[2].replace(/^\r?\n/, '') };
  const kept: [string, unknown][] = [];
  for (const [key, value] of Object.entries(rest)) {
    if (key === PROTOTYPE_KEY) checks.fail(`${path}.${key}`, REFUSED_KEY);
    else if (!isPlainText(value)) checks.fail(`${path}.${key}`, 'must be a string or a list of strings');
    else kept.push([key, value]);
  }
  if (metadata !== undefined && metadata !== null) {
    if (typeof metadata !== 'object' || Array.isArray(metadata)) checks.fail(`${path}.metadata`, 'must be a mapping of names to strings');
    else {
      const other: [string, unknown][] = [];
      for (const [key, value] of Object.entries(metadata)) {
        const field = READ_METADATA.get(key);
        if (key === PROTOTYPE_KEY) checks.fail(`${path}.metadata.${key}`, REFUSED_KEY);
        else if (!isPlainText(value)) checks.fail(`${path}.metadata.${key}`, 'must be a string');
        else if (field) (fields as Record<string, unknown>)[field] = value;
        else other.push([key, value]);
      }
      if (other.length) kept.push(['metadata', Object.fromEntries(other)]);
    }
  }
  if (kept.length > MAX_FRONT_MATTER_KEYS) checks.fail(path, `must have at most ${MAX_FRONT_MATTER_KEYS} front matter fields`);
  // fromEntries defines each key as an own property, as JSON.parse does when the row is read back.
  fields.frontMatter = Object.fromEntries(kept);
  return fields;
}

function isPlainText(value: unknown): boolean {
  if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return true;
  return Array.isArray(value) && value.length <= 100 && value.every((v) => typeof v === 'string');
}

/** A skill's content: everything a published version pins, and what SKILL.md carries of it. */
export interface SkillContent {
  name: string;
  description: string;
  runtime: string;
  entrypoint: string;
  category: string | null;
  version: string;
  source: string | null;
  bundleUrl: string | null;
  instructions: string;
  frontMatter: Record<string, unknown>;
}

/** Renders a skill as SKILL.md: what it was given as, plus how it runs in `metadata` (the source stays out). */
export function renderSkillMd(skill: SkillContent): string {
  const kept = (skill.frontMatter && typeof skill.frontMatter === 'object' ? skill.frontMatter : {}) as Record<string, unknown>;
  const { metadata: otherMetadata, ...restKept } = kept;
  const metadata: Record<string, unknown> = {
    runtime: skill.runtime,
    entrypoint: skill.entrypoint,
    version: skill.version,
    ...(skill.category ? { category: skill.category } : {}),
    ...(skill.bundleUrl ? { bundle_url: skill.bundleUrl } : {}),
    ...(otherMetadata && typeof otherMetadata === 'object' ? (otherMetadata as Record<string, unknown>) : {}),
  };
  const front = yaml().stringify({ name: skill.name, description: skill.description, ...restKept, metadata }, { lineWidth: 0 });
  return `---\n${front}---\n\n${skill.instructions}${skill.instructions.endsWith('\n') || skill.instructions === '' ? '' : '\n'}`;
}
