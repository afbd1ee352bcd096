// What a GraphQL operation costs, measured from its document before anything runs: aliases, how often a response
// name repeats in a selection set (validation compares those pairwise), complexity (a list multiplies what it selects
// by its page size), introspection, and the root fields. Fragment spreads count as execution would, yet each fragment
// is walked once and its measure reused, so the walk is linear in the document even when it selects 2^30 fields; it
// runs before validation, so unknown fields cost 1 and a fragment cycle adds nothing.
import {
  getNamedType,
  getNullableType,
  isInputObjectType,
  isInterfaceType,
  isLeafType,
  isListType,
  isObjectType,
  Kind,
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
  type ValueNode,
} from 'graphql';

export interface CostLimits {
  /** Aliases an operation may have, counted through fragments. */
  maxAliases: number;
  /** Times one response name may be selected in one selection set, fragments included. */
  maxRepeats: number;
  /** The complexity budget outside introspection. */
  maxComplexity: number;
  /** The complexity budget of introspection (`__schema`, `__type` and what they select). */
  maxIntrospectionComplexity: number;
  /** The page size of a list that names none. */
  defaultListSize: number;
  /** The largest page size counted (larger ones are refused by the field itself). */
  maxListSize: number;
}

export interface OperationCost {
  aliases: number;
  repeats: number;
  complexity: number;
  introspectionComplexity: number;
  /** How many introspection fields (`__schema`, `__type`) the operation selects. */
  introspection: number;
  /** Root fields by schema coordinate (`Query.me`), with how many times each is selected. */
  rootFields: Map<string, number>;
  /** Whether a page size comes from a variable: the complexity then depends on the request's variables. */
  variableSized: boolean;
  /**
   * The variables that give a page size (directly, or as an input object with a size field): the cost
   * depends on the request's variables through their values alone (see sizesKey).
   */
  sizeVariables: readonly string[];
}

/** The arguments that say how many items a list answers. */
const SIZE_ARGUMENTS = new Set(['first', 'last', 'limit']);

interface Measure {
  aliases: number;
  complexity: number;
  introspectionComplexity: number;
  introspection: number;
  /** The largest repeat count of any selection set inside (this level's own keys are in `keys`). */
  repeats: number;
  /** Response names selected at this level (fragments spread here included), with their counts. */
  keys: Map<string, number>;
  /** Field names at this level with their counts: only kept for a root type's selection sets. */
  fields?: Map<string, number>;
  variableSized: boolean;
  /** The variables that give a page size inside (only when there are some). */
  sizeVariables?: Set<string>;
}

function emptyMeasure(): Measure {
  return { aliases: 0, complexity: 0, introspectionComplexity: 0, introspection: 0, repeats: 0, keys: new Map(), variableSized: false };
}

function addSizeVariable(into: Measure, name: string): void {
  (into.sizeVariables ??= new Set()).add(name);
}

/** Adds `times` × `part` into `into` (a spread, or a nested selection set whose keys are its own). */
function addInto(into: Measure, part: Measure, { sameLevel }: { sameLevel: boolean }): void {
  into.aliases += part.aliases;
  into.complexity += part.complexity;
  into.introspectionComplexity += part.introspectionComplexity;
  into.introspection += part.introspection;
  into.variableSized ||= part.variableSized;
  if (part.sizeVariables) for (const name of part.sizeVariables) addSizeVariable(into, name);
  if (sameLevel) {
    into.repeats = Math.max(into.repeats, part.repeats);
    for (const [key, n] of part.keys) into.keys.set(key, (into.keys.get(key) ?? 0) + n);
    if (into.fields && part.fields) for (const [name, n] of part.fields) into.fields.set(name, (into.fields.get(name) ?? 0) + n);
  } else {
    into.repeats = Math.max(into.repeats, part.repeats, largest(part.keys));
  }
}

function largest(counts: Map<string, number>): number {
  let max = 0;
  for (const n of counts.values()) if (n > max) max = n;
  return max;
}

/**
 * Measures every operation of `document`, by name ('' for an anonymous one). Without `variables`, a
 * page size given by a variable counts as the variable's default (or the list's default size) and the
 * operation is marked `variableSized`; measure it again with the request's variables.
 */
export function measureDocument(
  schema: GraphQLSchema,
  document: DocumentNode,
  limits: CostLimits,
  variables?: Record<string, unknown>,
): Map<string, OperationCost> {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  const out = new Map<string, OperationCost>();
  const walker = new Walker(schema, fragments, limits);
  for (const d of document.definitions) {
    if (d.kind !== Kind.OPERATION_DEFINITION) continue;
    out.set(d.name?.value ?? '', walker.operation(d, variables));
  }
  return out;
}

/** Measures one operation (of a document already known to hold it). */
export function measureOperation(
  schema: GraphQLSchema,
  document: DocumentNode,
  operation: OperationDefinitionNode,
  limits: CostLimits,
  variables?: Record<string, unknown>,
): OperationCost {
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const d of document.definitions) if (d.kind === Kind.FRAGMENT_DEFINITION) fragments.set(d.name.value, d);
  return new Walker(schema, fragments, limits).operation(operation, variables);
}

/** What is over the limits, said for the client; undefined when the operation is within them. */
export function costProblem(cost: OperationCost, limits: CostLimits): string | undefined {
  if (cost.aliases > limits.maxAliases)
    return `The operation has ${count(cost.aliases)} aliases (fragments counted at each spread); at most ${limits.maxAliases} are allowed`;
  if (cost.repeats > limits.maxRepeats) {
    return `The operation selects one response name ${count(cost.repeats)} times in one selection set (fragments included); at most ${limits.maxRepeats} are allowed`;
  }
  if (cost.complexity > limits.maxComplexity) {
    return `The operation's complexity is ${count(cost.complexity)} (each field counts 1, and a list multiplies what it selects by its page size); the budget is ${limits.maxComplexity}`;
  }
  if (cost.introspectionComplexity > limits.maxIntrospectionComplexity) {
    return `The operation's introspection costs ${count(cost.introspectionComplexity)}; the budget is ${limits.maxIntrospectionComplexity} (twice a full introspection)`;
  }
  return undefined;
}

/** A page size as counted: whole, at least 1, at most the largest page (larger ones the field refuses). */
function pageSize(n: number, limits: CostLimits): number {
  return Math.min(Math.max(Number.isFinite(n) ? Math.trunc(n) : limits.maxListSize, 1), limits.maxListSize);
}

/**
 * What an operation's cost depends on in `variables`: each of its size variables' value as the measure
 * reads it (a number as the page size it counts as; an input object's first, last and limit; anything
 * else as absent). Two requests whose keys are equal have the same cost.
 */
export function sizesKey(cost: Pick<OperationCost, 'sizeVariables'>, variables: Record<string, unknown> | null | undefined, limits: CostLimits): string {
  let key = '';
  for (const name of cost.sizeVariables) {
    const v = variables?.[name];
    if (typeof v === 'number') key += `${pageSize(v, limits)},`;
    else if (v && typeof v === 'object' && !Array.isArray(v)) {
      key += '{';
      for (const size of SIZE_ARGUMENTS) {
        const n = (v as Record<string, unknown>)[size];
        key += typeof n === 'number' ? `${pageSize(n, limits)},` : '-,';
      }
      key += '},';
    } else key += '-,';
  }
  return key;
}

function count(n: number): string {
  return n > 1e15 ? 'more than 10^15' : String(Math.round(n));
}

class Walker {
  private variables?: Record<string, unknown>;
  private variableDefaults = new Map<string, ValueNode>();
  /** Fragments measured, by name and the page size hint they were measured under. */
  private readonly measured = new Map<string, Measure | 'measuring'>();

  constructor(
    private readonly schema: GraphQLSchema,
    private readonly fragments: Map<string, FragmentDefinitionNode>,
    private readonly limits: CostLimits,
  ) {}

  operation(op: OperationDefinitionNode, variables?: Record<string, unknown>): OperationCost {
    const defaults = new Map((op.variableDefinitions ?? []).flatMap((v) => (v.defaultValue ? [[v.variable.name.value, v.defaultValue] as const] : [])));
    // Fragments measured under other variables (or another operation's defaults) are measured again.
    if (variables || this.variables || defaults.size || this.variableDefaults.size) this.measured.clear();
    this.variables = variables;
    this.variableDefaults = defaults;
    const rootType =
      op.operation === 'query' ? this.schema.getQueryType() : op.operation === 'mutation' ? this.schema.getMutationType() : this.schema.getSubscriptionType();
    const m = this.selections(op.selectionSet, rootType ?? undefined, undefined, false);
    const rootFields = new Map<string, number>();
    const typeName = rootType?.name ?? (op.operation === 'query' ? 'Query' : op.operation === 'mutation' ? 'Mutation' : 'Subscription');
    for (const [name, n] of m.fields ?? []) if (!name.startsWith('__')) rootFields.set(`${typeName}.${name}`, n);
    return {
      aliases: m.aliases,
      repeats: Math.max(m.repeats, largest(m.keys)),
      complexity: m.complexity,
      introspectionComplexity: m.introspectionComplexity,
      introspection: m.introspection,
      rootFields,
      variableSized: m.variableSized,
      sizeVariables: m.sizeVariables ? [...m.sizeVariables] : [],
    };
  }

  /**
   * A selection set on `type`: `hint` is a page size given by the field that owns it (resolve's
   * `input.limit` sizes its `matches`), `introspecting` whether it lies under `__schema` or `__type`.
   */
  private selections(set: SelectionSetNode, type: GraphQLNamedType | undefined, hint: number | undefined, introspecting: boolean): Measure {
    const m = emptyMeasure();
    if (type && this.isRoot(type)) m.fields = new Map();
    for (const sel of set.selections) {
      if (sel.kind === Kind.FIELD) this.field(m, sel, type, hint, introspecting);
      else if (sel.kind === Kind.INLINE_FRAGMENT) {
        const on = sel.typeCondition ? this.schema.getType(sel.typeCondition.name.value) : type;
        addInto(m, this.selections(sel.selectionSet, on ?? undefined, hint, introspecting), { sameLevel: true });
      } else {
        const part = this.fragment(sel.name.value, hint, introspecting);
        if (part) addInto(m, part, { sameLevel: true });
      }
    }
    return m;
  }

  private fragment(name: string, hint: number | undefined, introspecting: boolean): Measure | undefined {
    const key = `${name}\n${hint ?? ''}\n${introspecting ? 1 : 0}`;
    const known = this.measured.get(key);
    // A cycle (validation refuses it) adds nothing.
    if (known === 'measuring') return undefined;
    if (known) return known;
    const def = this.fragments.get(name);
    if (!def) return undefined;
    this.measured.set(key, 'measuring');
    const type = this.schema.getType(def.typeCondition.name.value) ?? undefined;
    const m = this.selections(def.selectionSet, type, hint, introspecting);
    this.measured.set(key, m);
    return m;
  }

  private field(into: Measure, node: FieldNode, parent: GraphQLNamedType | undefined, hint: number | undefined, introspecting: boolean): void {
    const name = node.name.value;
    const key = node.alias?.value ?? name;
    into.keys.set(key, (into.keys.get(key) ?? 0) + 1);
    into.fields?.set(name, (into.fields.get(name) ?? 0) + 1);
    if (node.alias) into.aliases += 1;
    if (name === '__typename') return;
    const entering = name === '__schema' || name === '__type';
    if (entering) into.introspection += 1;
    const inIntrospection = introspecting || entering;
    const def = this.fieldDef(parent, name);
    if (node.selectionSet) {
      const type = def?.type;
      const named = type ? getNamedType(type) : undefined;
      const size = this.sizeOf(node, def);
      into.variableSized ||= size.fromVariable.length > 0;
      for (const name of size.fromVariable) addSizeVariable(into, name);
      const isList = type ? isListType(getNullableType(type)) : false;
      const isConnection = !!named && named.name.endsWith('Connection');
      let multiplier = 1;
      let childHint: number | undefined;
      if (isConnection) multiplier = size.value ?? this.limits.defaultListSize;
      else if (isList) {
        // A connection's edges and nodes are its page, already counted at the connection.
        const inConnection = !!parent && parent.name.endsWith('Connection') && (name === 'edges' || name === 'nodes');
        multiplier = inConnection ? 1 : (size.value ?? hint ?? this.limits.defaultListSize);
      } else childHint = size.value;
      const children = this.selections(node.selectionSet, named && !isLeafType(named) ? named : undefined, childHint, inIntrospection);
      addInto(
        into,
        { ...children, complexity: multiplier * children.complexity, introspectionComplexity: multiplier * children.introspectionComplexity },
        { sameLevel: false },
      );
    }
    if (inIntrospection) into.introspectionComplexity += 1;
    else into.complexity += 1;
  }

  private fieldDef(parent: GraphQLNamedType | undefined, name: string): GraphQLField<unknown, unknown> | undefined {
    if (!parent) return undefined;
    if (name === '__schema' || name === '__type') {
      // The introspection fields are not among the query type's own fields.
      const intro = name === '__schema' ? this.schema.getType('__Schema') : this.schema.getType('__Type');
      return intro ? ({ name, type: intro, args: [] } as unknown as GraphQLField<unknown, unknown>) : undefined;
    }
    if (isObjectType(parent) || isInterfaceType(parent)) return parent.getFields()[name];
    return undefined;
  }

  /** The page size the field's arguments give (directly, or inside an input object such as `input.limit`). */
  private sizeOf(node: FieldNode, def: GraphQLField<unknown, unknown> | undefined): { value?: number; fromVariable: string[] } {
    // The variables this field's size may come from, whatever their values: a size that an earlier one
    // gave first (`value ??=`) still names its variable, so the set is the document's alone.
    const fromVariable: string[] = [];
    const read = (value: ValueNode | undefined, variablePath: unknown): number | undefined => {
      if (!value) return undefined;
      if (value.kind === Kind.INT) return Number(value.value);
      if (value.kind === Kind.VARIABLE) {
        const given = this.variables ? variablePath : undefined;
        if (typeof given === 'number') return given;
        const fallback = this.variableDefaults.get(value.name.value);
        return fallback?.kind === Kind.INT ? Number(fallback.value) : undefined;
      }
      return undefined;
    };
    let value: number | undefined;
    for (const arg of node.arguments ?? []) {
      if (SIZE_ARGUMENTS.has(arg.name.value)) {
        if (arg.value.kind === Kind.VARIABLE) fromVariable.push(arg.value.name.value);
        value = read(arg.value, arg.value.kind === Kind.VARIABLE ? this.variables?.[arg.value.name.value] : undefined);
      } else if (arg.value.kind === Kind.OBJECT) {
        for (const f of arg.value.fields) {
          if (!SIZE_ARGUMENTS.has(f.name.value)) continue;
          if (f.value.kind === Kind.VARIABLE) fromVariable.push(f.value.name.value);
          value ??= read(f.value, f.value.kind === Kind.VARIABLE ? this.variables?.[f.value.name.value] : undefined);
        }
      } else if (arg.value.kind === Kind.VARIABLE && this.carriesSize(def, arg.name.value)) {
        // An input object from a variable that has a size field: the operation depends on its variables.
        fromVariable.push(arg.value.name.value);
        const given = this.variables?.[arg.value.name.value];
        if (given && typeof given === 'object' && !Array.isArray(given)) {
          for (const sizeName of SIZE_ARGUMENTS) {
            const n = (given as Record<string, unknown>)[sizeName];
            if (typeof n === 'number') value ??= n;
          }
        }
      }
    }
    if (value === undefined && def) {
      for (const a of def.args) if (SIZE_ARGUMENTS.has(a.name) && typeof a.defaultValue === 'number') value = a.defaultValue;
    }
    if (value !== undefined) value = pageSize(value, this.limits);
    return { value, fromVariable };
  }

  /** Whether the field's argument `name` is an input object with a size field (`input.limit`). */
  private carriesSize(def: GraphQLField<unknown, unknown> | undefined, name: string): boolean {
    const arg = def?.args.find((a) => a.name === name);
    const type = arg ? getNamedType(arg.type) : undefined;
    return !!type && isInputObjectType(type) && Object.keys(type.getFields()).some((f) => SIZE_ARGUMENTS.has(f));
  }

  private isRoot(type: GraphQLNamedType): boolean {
    return type === this.schema.getQueryType() || type === this.schema.getMutationType() || type === this.schema.getSubscriptionType();
  }
}
