// The MCP tool table against the schema: every document is valid and compiles, every variable has an
// argument, the spec's eight manifest tools are there by name, and a tool that drifted from the schema
// (or names a route that is gone) stops the server from starting.
import { parse, validate } from 'graphql';
import { compileRoutes } from '../../rest/runner';
import { routes } from '../../rest/routes';
import { schema } from '../../schema/index';
import { manifestTools, toolSpecs } from '../../src/protocols/mcp-tools';
import { compileTools } from '../../src/protocols/tools';

const compiledRoutes = compileRoutes(schema, routes);

it('compiles every tool, each document valid against the schema', () => {
  const tools = compileTools(schema, toolSpecs, compiledRoutes);
  expect(tools).toHaveLength(toolSpecs.length);
  for (const tool of tools) {
    expect(validate(schema, tool.op.document)).toEqual([]);
    if (tool.spec.withoutKey) expect(validate(schema, parse(tool.spec.withoutKey))).toEqual([]);
    // Every variable is fed from an argument (or the arguments that are its input's fields), or is the
    // payment that `_meta["x402/payment"]` alone carries.
    const fed = [...tool.placements.map((p) => p.variable), ...(tool.paymentVariable && !tool.paymentArg ? [tool.paymentVariable] : [])];
    expect(fed.sort()).toEqual(tool.op.variableTypes.map((v) => v.name).sort());
    expect(tool.definition.outputSchema.type).toBe('object');
    // A server compiles a document on its first run: each must compile.
    expect(() => tool.op.compile()).not.toThrow();
  }
});

it('compiles every route document (a server compiles each on its first run)', () => {
  for (const route of compiledRoutes) expect(() => route.compile()).not.toThrow();
});

it("has the spec's eight manifest tools, by name", () => {
  expect(manifestTools.map((t) => t.name)).toEqual(['searchCapabilities', 'getCapabilityDetails', 'browseProviders', 'executeCapability', 'registerAgent', 'getReputation', 'getMarketplaceStats', 'listSparks']);
  expect(manifestTools.every((t) => t.manifest)).toBe(true);
});

it('refuses a tool whose document drifted from the schema, or whose route is gone', () => {
  expect(() => compileTools(schema, [{ name: 'stale', title: 'Stale', document: 'query Stale { stats { noSuchField } }' }], compiledRoutes)).toThrow(/tool stale: invalid document/);
  expect(() => compileTools(schema, [{ name: 'gone', title: 'Gone', route: 'GET /no-such-route' }], compiledRoutes)).toThrow(/no route GET \/no-such-route/);
  expect(() => compileTools(schema, [{ name: 'twice', title: 'A', route: 'GET /stats' }, { name: 'twice', title: 'B', route: 'GET /tiers' }], compiledRoutes)).toThrow(/a second tool/);
  expect(() => compileTools(schema, [{ name: 'bad', title: 'Bad', route: 'GET /stats', refine: { nope: { maximum: 1 } } }], compiledRoutes)).toThrow(/refines nope/);
});
