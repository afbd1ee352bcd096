// What an operation costs before it runs (src/platform/operation-cost.ts), on the real schema: counts that
// follow fragments as execution would, found in one visit of each fragment, and the bounded cache the
// gate keeps parsed documents in.
import { getIntrospectionQuery, getNamedType, isInputObjectType, parse, typeFromAST, type OperationDefinitionNode } from 'graphql';
import { routes } from '../../rest/routes';
import { schema } from '../../schema/index';
import { costLimitsFor, sizedCostsKept, variablesProblem } from '../../src/pipeline/limits';
import { BoundedCache } from '../../src/platform/bounded-cache';
import { costProblem, measureDocument, type OperationCost } from '../../src/platform/operation-cost';

const limits = costLimitsFor(schema);
const measure = (text: string, variables?: Record<string, unknown>): OperationCost => [...measureDocument(schema, parse(text), limits, variables).values()][0];

/** Thirty fragments, each spreading the next twice: 2^30 selections of the last one's field. */
function fanOut(levels: number, selection = 'id'): string {
  const fragments = Array.from({ length: levels }, (_, i) => `fragment F${i} on Agent { ${i < levels - 1 ? `...F${i + 1} ...F${i + 1}` : selection} }`);
  return `{ me { ...F0 } } ${fragments.join(' ')}`;
}

describe('measuring an operation', () => {
  it('counts the root fields through fragments and inline fragments, each as often as it is selected', () => {
    const cost = measure(
      'query Q { a: me { id } b: me { id } ...F ... on Query { health { status } } __typename } fragment F on Query { version { version } }',
    );
    expect(Object.fromEntries(cost.rootFields)).toEqual({ 'Query.me': 2, 'Query.version': 1, 'Query.health': 1 });
    expect(cost.aliases).toBe(2);
    const mutation = measure('mutation { updateMe(input: {}) { id } }');
    expect(Object.fromEntries(mutation.rootFields)).toEqual({ 'Mutation.updateMe': 1 });
  });

  it('measures a fragment fan-out of 2^30 selections in a few milliseconds and refuses it', () => {
    const started = performance.now();
    const cost = measure(fanOut(30));
    expect(performance.now() - started).toBeLessThan(50);
    expect(cost.repeats).toBe(2 ** 29);
    expect(cost.complexity).toBeGreaterThan(2 ** 29);
    expect(costProblem(cost, limits)).toMatch(/selects one response name/);
  });

  it('counts the aliases of a fragment at every spread, and names the limit', () => {
    const aliases = Array.from({ length: 8 }, (_, i) => `a${i}: id`).join(' ');
    const cost = measure(`{ me { ...A ...B } } fragment A on Agent { ...C } fragment B on Agent { ...C ...C } fragment C on Agent { ${aliases} }`);
    expect(cost.aliases).toBe(24);
    const names = ['A', 'B', 'C', 'D', 'E', 'F', 'G', 'H', 'I'];
    const over = measure(`{ me { ${names.map((f) => `...${f}`).join(' ')} } } ${names.map((f) => `fragment ${f} on Agent { ${aliases} }`).join(' ')}`);
    expect(over.aliases).toBe(72);
    expect(costProblem(over, limits)).toMatch(/72 aliases .* at most 64/);
  });

  it('multiplies what a list selects by its page size: first on a connection, limit inside an input, the default otherwise', () => {
    const node = 'edges { node { id name description } }';
    expect(measure(`{ services(first: 100) { ${node} } }`).complexity).toBe(1 + 100 * (1 + 1 + 3));
    expect(measure(`{ services(first: 5) { ${node} } }`).complexity).toBe(1 + 5 * 5);
    // Without first: the default page.
    expect(measure(`{ services { ${node} } }`).complexity).toBe(1 + limits.defaultListSize * 5);
    // resolve's input.limit sizes the matches under it.
    expect(measure('{ resolve(input: { capability: "x", limit: 50 }) { matches { serviceId name } total } }').complexity).toBe(1 + (1 + 50 * 2) + 1);
    // An object under a list is counted once for each item.
    expect(measure('{ services(first: 10) { edges { node { provider { id } } } } }').complexity).toBe(1 + 10 * (1 + 1 + 2));
  });

  it('counts a page size given by a variable with the request’s value, and says the operation depends on it', () => {
    const text = 'query($n: Int, $input: ResolveInput!) { services(first: $n) { edges { node { id } } } resolve(input: $input) { matches { name } } }';
    const staticCost = measure(text);
    expect(staticCost.variableSized).toBe(true);
    const big = measure(text, { n: 100, input: { capability: 'x', limit: 100 } });
    expect(big.complexity).toBe(1 + 100 * 3 + 1 + (1 + 100 * 1));
    // A size past the largest page counts as the largest page: the field itself refuses it.
    expect(measure(text, { n: 1e12, input: { capability: 'x' } }).complexity).toBe(1 + limits.maxListSize * 3 + 1 + (1 + limits.defaultListSize * 1));
    expect(measure('{ me { id } }').variableSized).toBe(false);
  });

  it('counts introspection in a budget of its own: one full introspection fits, three do not', () => {
    const full = getIntrospectionQuery({
      descriptions: true,
      specifiedByUrl: true,
      directiveIsRepeatable: true,
      schemaDescription: true,
      inputValueDeprecation: true,
      oneOf: true,
    });
    const once = measure(full);
    expect(once.introspection).toBe(1);
    expect(once.complexity).toBe(0);
    expect(costProblem(once, limits)).toBeUndefined();
    const thrice = measure(
      full
        .replace('__schema {', 'a: __schema { queryType { name } } b: __schema { queryType { name } } __schema {')
        .replace(/types \{\n\s*\.\.\.FullType/, 'x: types { ...FullType } y: types { ...FullType } types { ...FullType'),
    );
    expect(costProblem(thrice, limits)).toMatch(/introspection costs/);
    expect(measure('{ __typename me { __typename } }').introspection).toBe(0);
  });

  it('survives documents validation refuses: unknown fields, missing fragments, cycles', () => {
    expect(measure('{ nope { deeper } me { ...Missing } }').complexity).toBe(3);
    const cycle = measure('{ me { ...A } } fragment A on Agent { id ...B } fragment B on Agent { name ...A }');
    expect(cycle.complexity).toBeLessThan(10);
  });

  it('admits every REST route’s document with a page of 100 (the most a listing answers), within the budget', async () => {
    for (const route of routes) {
      const document = parse(route.document);
      const operation = document.definitions.find((d) => d.kind === 'OperationDefinition')!;
      const variables: Record<string, unknown> = {};
      for (const v of operation.kind === 'OperationDefinition' ? (operation.variableDefinitions ?? []) : []) {
        const type = getNamedType(typeFromAST(schema, v.type as never)!);
        if (['first', 'limit'].includes(v.variable.name.value)) variables[v.variable.name.value] = 100;
        else if (isInputObjectType(type) && ('limit' in type.getFields() || 'first' in type.getFields()))
          variables[v.variable.name.value] = { limit: 100, first: 100 };
      }
      const cost = [...measureDocument(schema, document, limits, variables).values()][0];
      expect({ route: `${route.method} ${route.path}`, problem: costProblem(cost, limits) }).toEqual({
        route: `${route.method} ${route.path}`,
        problem: undefined,
      });
    }
  });
});

describe('the cost with a request’s page sizes (variablesProblem)', () => {
  // Three spreads of twenty fields under a page of services: a page of 1,000 is over the budget, of 10 not.
  const fields =
    'id serviceId serviceKey name description endpoint status pricingModel costPerCall reputation capabilities languages createdAt updatedAt resumeAt pricingDetails capabilityPrices';
  const text = `query Q($n: Int, $input: ResolveInput!) { ...Page resolve(input: $input) { matches { name } } }
    fragment Page on Query { services(first: $n) { edges { node { ...S ...S ...S } } } }
    fragment S on Service { ${fields} provider { id name } }`;

  it('is measured once for each document and set of page sizes, each answering as a measure with those variables does', () => {
    const document = parse(text);
    const operation = document.definitions[0] as OperationDefinitionNode;
    const cost = measureDocument(schema, document, limits).get('Q')!;
    expect(cost.sizeVariables).toEqual(['n', 'input']);
    const runs: Record<string, unknown>[] = [
      { n: 1000, input: { capability: 'x' } },
      { n: 10, input: { capability: 'x' } },
      { n: 1000 },
      { n: '1000' },
      { n: 999.5 },
      { n: 5, input: { capability: 'x', limit: 1000 } },
      { n: 5, input: { capability: 'x', limit: 10 } },
      // The same page sizes as runs above: a size past the largest page, and the same size again.
      { n: 1e12 },
      { n: 1000, input: { capability: 'y' } },
    ];
    const problems = new Set<string | undefined>();
    const before = sizedCostsKept(schema).entries;
    for (const round of [1, 2]) {
      for (const variables of runs) {
        const problem = costProblem(measureDocument(schema, document, limits, variables).get('Q')!, limits);
        problems.add(problem);
        expect({ round, variables, problem: variablesProblem(schema, document, operation, cost, variables)?.message }).toEqual({ round, variables, problem });
      }
      // One kept for each set of page sizes (the last two repeat earlier ones), none more the second time.
      expect(sizedCostsKept(schema).entries - before).toBe(7);
    }
    // Some runs were refused and some were not, whichever came first.
    expect(problems.has(undefined)).toBe(true);
    expect([...problems].some((p) => p?.includes('complexity'))).toBe(true);
  });

  it('names the size variables of a fragment in every operation that spreads it, and of an input object either way', () => {
    const costs = measureDocument(
      schema,
      parse(
        'query A($n: Int) { ...F } query B($n: Int) { ...F } query C($l: Int) { resolve(input: { capability: "x", limit: $l }) { total } } fragment F on Query { services(first: $n) { edges { node { id } } } }',
      ),
      limits,
    );
    expect(Object.fromEntries([...costs].map(([name, cost]) => [name, cost.sizeVariables]))).toEqual({ A: ['n'], B: ['n'], C: ['l'] });
    expect(measure('{ me { id } }').sizeVariables).toEqual([]);
  });
});

describe('BoundedCache', () => {
  it('holds at most its budget in bytes, dropping the least recently used first', () => {
    const cache = new BoundedCache<string>(100, (key, value) => key.length + value.length);
    cache.set('a', 'x'.repeat(39));
    cache.set('b', 'x'.repeat(39));
    expect(cache.get('a')).toBeDefined();
    cache.set('c', 'x'.repeat(39));
    // b was the least recently used.
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')).toBeDefined();
    expect(cache.bytes).toBeLessThanOrEqual(100);
    cache.set('huge', 'x'.repeat(200));
    expect(cache.get('huge')).toBeUndefined();
    expect(cache.size).toBe(2);
  });
});
