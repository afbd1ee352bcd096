// The marketplace's own provider (`service_key: marketplace`): its capabilities are table entries — an
// identifier, an input and an output JSON Schema, a handler — like routes and tools. Two kinds:
//
// - `own`: a capability of the marketplace's own systems (ticketing, security, radio, books), working on
//   its own data. The marketplace always answers it; no registered service can. Its handler runs inside the
//   transaction that records the execution, so what it writes and the execution commit together. It touches
//   the database only through that transaction (`tx`).
// - `generic`: a capability sellers compete on (web, nlp). The marketplace is the provider of last resort:
//   auto mode tries registered providers first and falls back to it; `resolve` lists it after them; chosen
//   mode reaches it by its key. Its handler runs outside any transaction (it calls the web or a model), may
//   take seconds, and must honour `signal`. A generic capability this instance cannot serve
//   (`available` false: a model-backed one with no backend) is not offered at all.
//
// Handlers get the input validated against `inputSchema`, its top-level fields readable in both spellings
// (`ticket_key` and `ticketKey`). A handler's ValidationFailed names paths relative to the input
// (`text`, `labels.0`); execute reports them under `input.`.
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
