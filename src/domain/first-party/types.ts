// The marketplace's own provider (`service_key: marketplace`): capabilities as table entries (identifier, input and
// output JSON Schema, handler). `own` ones (ticketing, security, radio, books) work on the marketplace's data and only it
// answers them; their handler runs inside the execution's recording transaction and touches the database only through
// `tx`. `generic` ones (web, nlp) are the last resort after registered providers, run outside any transaction, may take
// seconds and must honour `signal`; one this instance cannot serve is not offered (docs/execution.md, The marketplace as a provider).
import type { DbTx } from '../../db/database';
import type { Agent } from '../../db/generated/prisma/client';
import type { Ctx, Services } from '../context';
import type { Emit } from '../events';

/** A JSON Schema (draft 2020-12 keywords ajv supports), as plain data. */
export type JsonSchema = Record<string, unknown>;

/** A model backend's usage on a call, recorded on the execution's attempt. */
export interface ModelUsage {
  model: string;
  prompt_tokens: number;
  completion_tokens: number;
  total_tokens: number;
}

/** What a generic handler answers: the output (valid against `outputSchema`), and a model's usage when one was called. */
export interface Served {
  output: unknown;
  usage?: ModelUsage;
}

interface Common {
  /** The identifier (spec §1). */
  slug: string;
  /** One sentence: what it does, for listings, tool descriptions and the OpenAPI document. */
  summary: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  /**
   * Whether this instance can serve it now (a model-backed one needs LLM_BASE_URL). Unset: always. When
   * false, the capability is not listed by resolve or the catalog's first-party view, nor tried by execute.
   */
  available?: (services: Services) => boolean;
  /** What `available` false means, named in the 503 (e.g. "set LLM_BASE_URL and LLM_MODEL"). */
  unavailableBecause?: string;
}

export interface OwnCapability extends Common {
  kind: 'own';
  run: (tx: DbTx, emit: Emit, ctx: Ctx, me: Agent, input: Record<string, unknown>) => Promise<unknown>;
}

export interface GenericCapability extends Common {
  kind: 'generic';
  run: (ctx: Ctx, me: Agent, input: Record<string, unknown>, signal: AbortSignal) => Promise<Served>;
}

export type FirstPartyCapability = OwnCapability | GenericCapability;
