// The shapes REST answers, checked over every route of the route tables (so a route added later is held to
// them without writing anything): a flag is a boolean, a timestamp is a DateTime, and one field of one
// type is spelled one way in every answer.
import {
  getNamedType,
  getNullableType,
  isEnumType,
  isNonNullType,
  isObjectType,
  Kind,
  type FragmentDefinitionNode,
  type GraphQLEnumType,
  type GraphQLObjectType,
  type GraphQLOutputType,
  type SelectionSetNode,
} from 'graphql';
import { routes } from '../../rest/routes';
import { compileRoutes } from '../../rest/runner';
import { schema } from '../../schema';

interface Key {
  route: string;
  key: string;
  coordinate: string;
  type: GraphQLOutputType;
}

/** Every JSON key of every route's answer, with the schema field it comes from. */
function answerKeys(): Key[] {
  const keys: Key[] = [];
  for (const c of compileRoutes(schema, routes)) {
    const fragments = new Map(
      c.document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
    );
    const walk = (type: GraphQLObjectType, set: SelectionSetNode) => {
      for (const sel of set.selections) {
        if (sel.kind === Kind.FIELD) {
          if (sel.name.value === '__typename') continue;
          const field = type.getFields()[sel.name.value];
          keys.push({ route: c.label, key: sel.alias?.value ?? sel.name.value, coordinate: `${type.name}.${field.name}`, type: field.type });
          const named = getNamedType(field.type);
          if (sel.selectionSet && isObjectType(named)) walk(named, sel.selectionSet);
        } else if (sel.kind === Kind.FRAGMENT_SPREAD) walk(type, fragments.get(sel.name.value)!.selectionSet);
        else walk(type, sel.selectionSet);
      }
    };
    const root =
      c.operation.operation === 'mutation'
        ? schema.getMutationType()!
        : c.operation.operation === 'subscription'
          ? schema.getSubscriptionType()!
          : schema.getQueryType()!;
    walk(root, c.operation.selectionSet);
  }
  return keys;
}

const keys = answerKeys();

/** Flags the specification names, and ours of the same shape. */
const FLAGS = [
  'published',
  'installed',
  'ended',
  'pushed',
  'updated',
  'registered',
  'resolved',
  'revoked',
  'deleted',
  'valid',
  'active',
  'connected',
  'subscribed',
  'queued',
  'converted',
  'imported',
  'delegated',
  'simulated',
  'enabled',
  'sandbox',
  'pricing_set',
  'pong',
];

it('answers every flag as a boolean that is never null', () => {
  // Statistics count things by state (`agents { total active suspended }`): those are numbers, not flags.
  const flags = keys.filter((k) => FLAGS.includes(k.key) && !/Stats\./.test(k.coordinate));
  expect(flags.length).toBeGreaterThan(5);
  for (const k of flags) expect(`${k.route} ${k.key}: ${String(k.type)}`).toBe(`${k.route} ${k.key}: Boolean!`);
});

it('answers every timestamp (`…_at`, `…At`) as a DateTime', () => {
  const stamps = keys.filter((k) => /(_at|At)$/.test(k.key));
  expect(stamps.length).toBeGreaterThan(20);
  for (const k of stamps) expect(`${k.route} ${k.key}: ${getNullableType(k.type).toString()}`).toBe(`${k.route} ${k.key}: DateTime`);
});

it('answers the timestamps that always exist as never null', () => {
  for (const k of keys.filter(
    (x) => ['created_at', 'expires_at'].includes(x.key) && x.coordinate !== 'MemoryEntry.expiresAt' && !x.coordinate.startsWith('WrittenMemoryEntry'),
  )) {
    expect(`${k.route} ${k.key}: ${isNonNullType(k.type)}`).toBe(`${k.route} ${k.key}: true`);
  }
});

/** Where the specification itself spells one field two ways. */
const SPEC_SPELLS_TWICE: Record<string, string[]> = {
  // §4.1: registration answers `agent_id`, sub-agent creation `id`
  'AgentRegistration.agentId': ['agent_id', 'id'],
  // §4.2: resolve's matches carry `score`, /resolve/quick `match_score`
  'ProviderMatch.score': ['match_score', 'score'],
  // §4.9: a fork answers `forked_id`
  'Skill.skillId': ['forked_id', 'id'],
};

it('spells one field of one type the same way in every answer', () => {
  const spellings = new Map<string, Set<string>>();
  for (const k of keys) {
    if (!spellings.has(k.coordinate)) spellings.set(k.coordinate, new Set());
    spellings.get(k.coordinate)!.add(k.key);
  }
  const twice = Object.fromEntries([...spellings].filter(([, s]) => s.size > 1).map(([c, s]) => [c, [...s].sort()]));
  expect(twice).toEqual(SPEC_SPELLS_TWICE);
});

describe('answers of the compiled documents', () => {
  // rest/runner.ts compiles documents with graphql-jit's disableLeafSerialization: an enum's value is
  // answered as the resolver gives it, which is right only while every value is its own name.
  it('has every enum value equal to its name', () => {
    const differing = Object.values(schema.getTypeMap())
      .filter((t): t is GraphQLEnumType => isEnumType(t) && !t.name.startsWith('__'))
      .flatMap((t) =>
        t
          .getValues()
          .filter((v) => v.value !== v.name)
          .map((v) => `${t.name}.${v.name}`),
      );
    expect(differing).toEqual([]);
  });
});
