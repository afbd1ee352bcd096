// The one way an operation is run for a client, whatever surface it came by (REST, GraphQL over HTTP,
// WebSocket and SSE, MCP, A2A): the request's context, then the guards in order (rate buckets,
// authentication, the input read and held to the boundary, the cost with the request's page sizes, and
// whatever an instance adds), then the operation. A guard is added here once and every surface has it.
import type { Ctx } from '../domain/context';
import { adminOf, agentOf, principalNow, requireAdmin, requireAgent } from '../domain/agents/principal';
import { ValidationFailed } from '../platform/errors';
import { inputProblem } from '../platform/input-boundary';
import { spendCharges, type Charge } from './rate';

export type { Charge } from './rate';

/** Every surface an operation can come by; a test runs one operation through each. */
export const SURFACES = ['rest', 'rest-websocket', 'graphql', 'graphql-ws', 'graphql-sse', 'mcp', 'a2a'] as const;
export type Surface = (typeof SURFACES)[number];

/** Who may run an operation: decided before its input is read, so 401/403 come before 400. */
export type Auth = 'agent' | 'admin' | 'none';

export type Variables = Record<string, unknown>;

/**
 * What reading the request gave: the operation's variables, or the answer kept for this very request (a
 * cacheable read found by its URL and body text: what was kept was made from the same input, after the
 * same guards, so the input, cost and operation guards have nothing to add).
 */
export type Input<T> = { variables: Variables; kept?: undefined } | { kept: T };

export interface OperationCall<T> {
  surface: Surface;
  ctx: Ctx;
  /** Names the operation in logs and guards: a route (`POST /execute`), a tool, a root field. */
  label: string;
  /** The rate buckets it spends. */
  charges: readonly Charge[];
  /** `fields`: a GraphQL document's root fields each say who may run them (the schema's scopes). */
  auth: Auth | 'fields';
  /** The answer's headers: the guards add theirs (X-RateLimit-*), sent with a refusal too. */
  headers: Record<string, string>;
  /** Reads the operation's input from what the client sent (the body, the arguments, the variables). */
  read(): Input<T> | Promise<Input<T>>;
  /** The operation's cost with the request's variables (page sizes): the refusal, or undefined. */
  cost?(variables: Variables): Error | undefined;
  /** The operation itself, once every guard has passed. */
  run(variables: Variables): Promise<T> | T;
}

/** A call on its way through the guards: the call, and its variables once read. */
export interface Passage {
  readonly call: OperationCall<unknown>;
  variables?: Variables;
}

/**
 * A check every operation passes. `request` guards run after authentication and before the input is read
 * (every request, an answer kept for it too); `operation` guards after the cost, with the variables.
 */
export interface Guard {
  name: string;
  stage: 'request' | 'operation';
  check(passage: Passage): void | Promise<void>;
}

const rate: Guard = {
  name: 'rate',
  stage: 'request',
  check: ({ call }) => spendCharges(call.ctx, call.charges, call.headers),
};

const authentication: Guard = {
  name: 'authentication',
  stage: 'request',
  check: ({ call }) => {
    if (call.auth !== 'agent' && call.auth !== 'admin') return;
    // A caller already looked up or kept in the principal cache is checked at once.
    const known = principalNow(call.ctx);
    if (call.auth === 'agent') return known ? void agentOf(known) : requireAgent(call.ctx).then(() => {});
    return known ? adminOf(known) : requireAdmin(call.ctx);
  },
};

const inputBoundary: Guard = {
  name: 'input',
  stage: 'operation',
  check: ({ variables }) => {
    if (isEmpty(variables!)) return;
    const problem = inputProblem(variables, '');
    if (problem) throw new ValidationFailed(problem);
  },
};

const cost: Guard = {
  name: 'cost',
  stage: 'operation',
  check: ({ call, variables }) => {
    const refused = call.cost?.(variables!);
    if (refused) throw refused;
  },
};

/** Most reads carry no variables: nothing to walk (and no walk's allocations). */
function isEmpty(variables: Variables): boolean {
  for (const key in variables) if (Object.hasOwn(variables, key)) return false;
  return true;
}

/** The guards of one instance, in order. */
export class Pipeline {
  private requestGuards: Guard[] = [rate, authentication];
  private operationGuards: Guard[] = [inputBoundary, cost];

  /** Adds a guard at the end of its stage: every surface passes it from the next call on. */
  use(guard: Guard): () => void {
    const list = guard.stage === 'request' ? this.requestGuards : this.operationGuards;
    list.push(guard);
    return () => {
      const at = list.indexOf(guard);
      if (at >= 0) list.splice(at, 1);
    };
  }

  /**
   * Runs the call through every guard, then the operation; a guard's refusal is thrown (the surface
   * answers it in its own form, with `call.headers`). Synchronous until a guard or the read waits: a
   * request whose caller and answer are known spends no turn of the event loop on guards that had
   * nothing to wait for.
   */
  run<T>(call: OperationCall<T>): Promise<T> {
    try {
      const passage: Passage = { call: call as OperationCall<unknown> };
      const passed = pass(this.requestGuards, passage, 0);
      return Promise.resolve(passed ? passed.then(() => this.afterRequest(call, passage)) : this.afterRequest(call, passage));
    } catch (err) {
      return Promise.reject(err);
    }
  }

  private afterRequest<T>(call: OperationCall<T>, passage: Passage): T | Promise<T> {
    const input = call.read();
    return input instanceof Promise ? input.then((read) => this.operate(call, passage, read)) : this.operate(call, passage, input);
  }

  private operate<T>(call: OperationCall<T>, passage: Passage, input: Input<T>): T | Promise<T> {
    if (input.kept !== undefined) return input.kept;
    const { variables } = input as { variables: Variables };
    passage.variables = variables;
    const passed = pass(this.operationGuards, passage, 0);
    return passed ? passed.then(() => call.run(variables)) : call.run(variables);
  }
}

/** Passes `guards` from `from` on: nothing when each checked at once, else a promise of the last one's end. */
function pass(guards: readonly Guard[], passage: Passage, from: number): void | Promise<void> {
  for (let i = from; i < guards.length; i++) {
    const pending = guards[i].check(passage);
    if (pending) return pending.then(() => pass(guards, passage, i + 1));
  }
}

/** Runs `call` through its instance's pipeline. */
export function runOperation<T>(call: OperationCall<T>): Promise<T> {
  return call.ctx.services.pipeline.run(call);
}

declare module '../domain/context' {
  interface Services {
    /** The guards every operation passes, on every surface (src/pipeline/pipeline.ts). */
    pipeline: Pipeline;
  }
}
