// A Pothos plugin for the one check most fields make: who may call them. A field declares `auth: 'agent'` (a live,
// active agent's master key) or `auth: 'admin'`, and its resolver (a subscription's subscribe) runs only after the
// check, which throws our own 401/403. scope-auth keeps what it is best at, whether the caller may see an object; for a
// plain caller check it built a request cache of maps and promises on every field, while this asks the context once,
// without a promise when the caller is already known (docs/benchmarks.md, The bare `node:http` reference).
import SchemaBuilder, {
  BasePlugin,
  type FieldNullability,
  type InputFieldMap,
  type PothosOutputFieldConfig,
  type SchemaTypes,
  type TypeParam,
} from '@pothos/core';
import type { GraphQLFieldResolver } from 'graphql';
import { adminOf, agentOf } from '../src/domain/agents/principal';
import type { Ctx, Principal } from '../src/domain/context';

/** Who may call a field. */
export type FieldAuth = 'agent' | 'admin';

const CHECKS: Record<FieldAuth, (principal: Principal) => unknown> = { agent: agentOf, admin: adminOf };

const pluginName = 'callerAuth';

declare global {
  // Pothos' own extension point: plugins add their options by merging into these interfaces (a namespace, and
  // every type parameter of the interface it merges into, used or not).
  // eslint-disable-next-line @typescript-eslint/no-namespace
  export namespace PothosSchemaTypes {
    export interface Plugins<Types extends SchemaTypes> {
      callerAuth: CallerAuthPlugin<Types>;
    }
    /* eslint-disable @typescript-eslint/no-unused-vars */
    export interface FieldOptions<
      Types extends SchemaTypes,
      ParentShape,
      Type extends TypeParam<Types>,
      Nullable extends FieldNullability<Type>,
      Args extends InputFieldMap,
      ResolveShape,
      ResolveReturnShape,
    > {
      /** Who may call the field: checked before it resolves (a subscription: before it subscribes). */
      auth?: FieldAuth;
    }
    /* eslint-enable @typescript-eslint/no-unused-vars */
  }
}

type Resolver<Types extends SchemaTypes> = GraphQLFieldResolver<unknown, Types['Context'], object>;

/** The resolver behind the caller check. */
function checked<Types extends SchemaTypes>(auth: FieldAuth, resolver: Resolver<Types>): Resolver<Types> {
  const check = CHECKS[auth];
  return (parent, args, context, info) => {
    const ctx = context as Ctx;
    if (ctx.resolvedPrincipal) {
      check(ctx.resolvedPrincipal);
      return resolver(parent, args, context, info);
    }
    return ctx.principal().then((principal) => {
      check(principal);
      return resolver(parent, args, context, info);
    });
  };
}

export class CallerAuthPlugin<Types extends SchemaTypes> extends BasePlugin<Types> {
  override wrapResolve(resolver: Resolver<Types>, fieldConfig: PothosOutputFieldConfig<Types>): Resolver<Types> {
    const auth = fieldConfig.pothosOptions.auth;
    // A subscription is checked once, when it subscribes, not at every event it delivers.
    if (!auth || fieldConfig.kind === 'Subscription') return resolver;
    return checked(auth, resolver);
  }

  override wrapSubscribe(subscribe: Resolver<Types> | undefined, fieldConfig: PothosOutputFieldConfig<Types>): Resolver<Types> | undefined {
    const auth = fieldConfig.pothosOptions.auth;
    if (!auth || !subscribe) return subscribe;
    return checked(auth, subscribe);
  }
}

SchemaBuilder.registerPlugin(pluginName, CallerAuthPlugin);

export default pluginName;
