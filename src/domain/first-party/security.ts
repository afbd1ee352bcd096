// The security capabilities: an agent's trust score from its record, and the audit of a skill's source.
// Served by the marketplace on its own data.
import { trustScore, TRUST_WEIGHTS } from '../reputation/trust';
import { auditSkill } from '../skills/audit';
import { RUNTIMES, SOURCE_MAX_BYTES } from '../skills/skills';
import { int, list, nullable, num, obj, str } from './schema';
import type { FirstPartyCapability } from './types';

const CATEGORIES = ['network', 'subprocess', 'filesystem', 'dynamic_code', 'environment'];

export const SECURITY_CAPABILITIES: FirstPartyCapability[] = [
  {
    slug: 'trust-score',
    kind: 'own',
    summary: 'An agent’s trust, 0–100, from its reputation, how reliably its services answered and the disputes it lost',
    inputSchema: obj({ agent_id: str('The agent (UUID)', { format: 'uuid' }) }, ['agent_id']),
    outputSchema: obj(
      {
        agent_id: str('The agent'),
        trust_score: num('reputation/100 × 0.5 + (successes + 1)/(calls + 2) × 0.3 + 1/(1 + disputes lost) × 0.2, as 0–100', { minimum: 0, maximum: 100 }),
        tier: str('Its tier', { enum: ['newcomer', 'contributor', 'trusted', 'star'] }),
        reputation: int('Its reputation', { minimum: 0, maximum: 100 }),
        reliability: obj({ calls: int('Calls of its services'), successes: int('Of which answered'), success_rate: num('Laplace-smoothed success rate') }, [
          'calls',
          'successes',
          'success_rate',
        ]),
        disputes: obj({ total: int('Disputes against it'), lost: int('Resolved with a refund'), open: int('Still open or under review') }, [
          'total',
          'lost',
          'open',
        ]),
        reputation_events: obj({ count: int('Reputation events in the last 30 days'), net_last_30_days: int('Their net change') }, [
          'count',
          'net_last_30_days',
        ]),
        weights: obj(Object.fromEntries(Object.keys(TRUST_WEIGHTS).map((k) => [k, num(`The weight of ${k}`)])), Object.keys(TRUST_WEIGHTS)),
      },
      ['agent_id', 'trust_score', 'tier', 'reputation', 'reliability', 'disputes', 'reputation_events', 'weights'],
    ),
    run: async (tx, _emit, ctx, _me, input) => trustScore(tx, input, ctx.services.clock.now()),
  },
  {
    slug: 'skill-audit',
    kind: 'own',
    summary: 'Audits a skill — a published one by id, or source given inline — for what it reaches: network, processes, files, dynamic code, environment',
    inputSchema: {
      type: 'object',
      description: 'Either skill_id, or runtime, entrypoint and source (all three required then)',
      properties: {
        skill_id: str('A skill the caller can read (skl_…)', { maxLength: 64 }),
        runtime: str('The source’s runtime', { enum: [...RUNTIMES] }),
        entrypoint: str('The entry point file or command', { minLength: 1, maxLength: 256 }),
        source: str(`The source (at most ${SOURCE_MAX_BYTES / 1024} KiB)`, { minLength: 1, maxLength: SOURCE_MAX_BYTES }),
      },
      additionalProperties: false,
      // The inline form's three fields come together (the handler names what is missing when none is given).
      dependencies: { runtime: ['entrypoint', 'source'], entrypoint: ['runtime', 'source'], source: ['runtime', 'entrypoint'] },
    },
    outputSchema: obj(
      {
        skill_id: nullable(str('The skill audited, or null for inline source')),
        version: nullable(str('Its version')),
        name: nullable(str('Its name')),
        content_hash: str('SHA-256 of what was audited'),
        runtime: str('Its runtime', { enum: [...RUNTIMES] }),
        entrypoint: str('Its entry point'),
        size_bytes: int('The source’s size'),
        lines: int('The source’s lines'),
        findings: list(
          obj(
            {
              category: str('What it reaches', { enum: [...CATEGORIES, 'declaration'] }),
              rule: str('The rule that matched'),
              severity: str('How much it matters', { enum: ['low', 'medium', 'high', 'info'] }),
              line: nullable(int('The line')),
              excerpt: nullable(str('The line’s text')),
              message: str('What it means'),
            },
            ['category', 'rule', 'severity', 'line', 'excerpt', 'message'],
          ),
          'What the audit found',
        ),
        reaches: obj(Object.fromEntries(CATEGORIES.map((c) => [c, int(`Findings of ${c}`)])), CATEGORIES),
        risk: str('The overall risk', { enum: ['low', 'medium', 'high'] }),
        summary: str('One sentence'),
      },
      ['skill_id', 'version', 'name', 'content_hash', 'runtime', 'entrypoint', 'size_bytes', 'lines', 'findings', 'reaches', 'risk', 'summary'],
    ),
    run: async (tx, _emit, ctx, _me, input) => auditSkill(ctx, tx, input),
  },
];
