// The marketplace as a provider (`service_key: marketplace`): every capability it serves itself, by
// identifier. The own ones (ticketing, security, radio, books) call their systems' public functions; the
// generic ones (web, nlp) work alone (types.ts tells the two kinds).
import { ValidationFailed, type FieldError } from '../../platform/errors';
import { schemaProblems } from '../../platform/json-schema-check';
import { sameJson, snakeCase, withBothSpellings } from '../../platform/naming';
import type { Services } from '../context';
import { BOOKS_CAPABILITIES } from './books';
import { NLP_CAPABILITIES } from './nlp';
import { RADIO_CAPABILITIES } from './radio';
import { SECURITY_CAPABILITIES } from './security';
import { TICKETING_CAPABILITIES } from './ticketing';
import type { FirstPartyCapability } from './types';
import { WEB_CAPABILITIES } from './web';

/** How the marketplace names itself as a provider. */
export const MARKETPLACE_PROVIDER = { serviceKey: 'marketplace', name: 'Agent Capability Marketplace', reputation: 100 } as const;

export const FIRST_PARTY: ReadonlyMap<string, FirstPartyCapability> = new Map(
  [...TICKETING_CAPABILITIES, ...SECURITY_CAPABILITIES, ...RADIO_CAPABILITIES, ...BOOKS_CAPABILITIES, ...WEB_CAPABILITIES, ...NLP_CAPABILITIES].map((c) => [
    c.slug,
    c,
  ]),
);

/**
 * A first-party capability's input as its handler reads it: top-level fields renamed to snake_case (both spellings with
 * different values is an error), checked against the input schema, then readable in both spellings. Field errors name
 * paths relative to the input, the top-level field as the client spelled it.
 */
export function firstPartyInput(capability: FirstPartyCapability, input: Record<string, unknown>): Record<string, unknown> {
  const snake: Record<string, unknown> = Object.create(null);
  const spelled = new Map<string, string>();
  const twice: FieldError[] = [];
  for (const [key, value] of Object.entries(input)) {
    const name = snakeCase(key);
    if (spelled.has(name)) {
      if (!sameJson(snake[name], value)) twice.push({ path: key, message: `is given twice, as ${spelled.get(name)} and ${key}, with different values` });
      continue;
    }
    spelled.set(name, key);
    snake[name] = value;
  }
  if (twice.length) throw new ValidationFailed(twice);
  const problems = schemaProblems(capability.inputSchema, snake);
  if (problems.length) {
    throw new ValidationFailed(
      problems.map((p) => {
        const [head, ...rest] = p.path.split('.');
        return { ...p, path: [spelled.get(head) ?? head, ...rest].join('.') };
      }),
    );
  }
  return withBothSpellings(snake);
}

/** Whether this instance serves a first-party capability now (a model-backed one needs its backend). */
export function servedHere(capability: FirstPartyCapability, services: Services): boolean {
  return capability.available ? capability.available(services) : true;
}
