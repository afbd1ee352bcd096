// Every capability the marketplace serves itself, by identifier (see types.ts for the two kinds).
import { BOOKS_CAPABILITIES } from './books';
import { NLP_CAPABILITIES } from './nlp';
import { RADIO_CAPABILITIES } from './radio';
import { SECURITY_CAPABILITIES } from './security';
import { TICKETING_CAPABILITIES } from './ticketing';
import type { FirstPartyCapability } from './types';
import { WEB_CAPABILITIES } from './web';

export type { FirstPartyCapability, GenericCapability, OwnCapability, JsonSchema, ModelUsage, Served } from './types';

export const FIRST_PARTY: ReadonlyMap<string, FirstPartyCapability> = new Map(
  [...TICKETING_CAPABILITIES, ...SECURITY_CAPABILITIES, ...RADIO_CAPABILITIES, ...BOOKS_CAPABILITIES, ...WEB_CAPABILITIES, ...NLP_CAPABILITIES].map((c) => [c.slug, c]),
);
