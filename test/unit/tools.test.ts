// The MCP tool table against the schema: every document is valid and compiles, every variable has an
// argument, the spec's eight manifest tools are there by name, every tool is in a known toolset (the
// default one holding 25), and a tool that drifted from the schema (or names a route that is gone) stops
// the server from starting.
import { parse, validate } from 'graphql';
import { compileRoutes } from '../../rest/runner';
import { routes } from '../../rest/routes';
import { schema } from '../../schema/index';
import { manifestTools, toolSpecs } from '../../protocols/mcp-tools';
import { compileTools } from '../../protocols/tools';
import { capabilityToolset } from '../../protocols/capability-tools';
import { FIRST_PARTY } from '../../src/domain/first-party/first-party';
import { askedToolsets, DEFAULT_TOOLSET, groupTools, TOOLSET_META, TOOLSETS, UnknownToolset } from '../../protocols/toolsets';

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
  expect(manifestTools.map((t) => t.name)).toEqual([
    'searchCapabilities',
    'getCapabilityDetails',
    'browseProviders',
    'executeCapability',
    'registerAgent',
    'getReputation',
    'getMarketplaceStats',
    'listSparks',
  ]);
  expect(manifestTools.every((t) => t.manifest)).toBe(true);
});

it('refuses a tool whose document drifted from the schema, or whose route is gone', () => {
  expect(() => compileTools(schema, [{ name: 'stale', title: 'Stale', document: 'query Stale { stats { noSuchField } }' }], compiledRoutes)).toThrow(
    /tool stale: invalid document/,
  );
  expect(() => compileTools(schema, [{ name: 'gone', title: 'Gone', route: 'GET /no-such-route' }], compiledRoutes)).toThrow(/no route GET \/no-such-route/);
  expect(() =>
    compileTools(
      schema,
      [
        { name: 'twice', title: 'A', route: 'GET /stats' },
        { name: 'twice', title: 'B', route: 'GET /tiers' },
      ],
      compiledRoutes,
    ),
  ).toThrow(/a second tool/);
  expect(() => compileTools(schema, [{ name: 'bad', title: 'Bad', route: 'GET /stats', refine: { nope: { maximum: 1 } } }], compiledRoutes)).toThrow(
    /refines nope/,
  );
});

describe('toolsets', () => {
  const members = () => [
    ...toolSpecs.map((t) => ({ name: t.name, toolset: t.toolset })),
    ...[...FIRST_PARTY.values()].map((c) => ({ name: c.slug, toolset: capabilityToolset(c.slug) })),
  ];

  it('puts every tool in a known toolset, the default holding 25 with the eight of the manifest, and every toolset some tool', () => {
    const groups = groupTools(members());
    expect(groups.get(DEFAULT_TOOLSET)).toHaveLength(25);
    expect(groups.get(DEFAULT_TOOLSET)).toEqual(expect.arrayContaining([...manifestTools.map((t) => t.name), 'support-ticket']));
    for (const [name, tools] of groups) expect([name, tools.length > 0]).toEqual([name, true]);
    // The printed tool list shows each tool's toolset.
    for (const tool of compileTools(schema, toolSpecs, compiledRoutes)) expect(tool.definition._meta).toEqual({ [TOOLSET_META]: tool.spec.toolset });
  });

  it('refuses at start-up a tool with no toolset or an unknown one, and a default that is not 25', () => {
    expect(() => groupTools([...members(), { name: 'loose', toolset: undefined }])).toThrow(/loose names no toolset/);
    expect(() => groupTools([...members(), { name: 'odd', toolset: 'nowhere' }])).toThrow(/toolset nowhere, which is not one/);
    expect(() => groupTools([...members(), { name: 'extra', toolset: DEFAULT_TOOLSET }])).toThrow(/holds 26 tools; spec §4.14 says 25/);
  });

  it('reads the toolsets a request asks for from the path and the query, the default always among them', () => {
    const names = (url: string) => {
      const s = askedToolsets(url, '/mcp');
      return s.all ? 'all' : [...s.names].sort();
    };
    expect(names('/mcp')).toEqual([DEFAULT_TOOLSET]);
    expect(names('/mcp?toolsets=memory,%20uto')).toEqual([DEFAULT_TOOLSET, 'memory', 'uto'].sort());
    expect(names('/mcp?toolsets=memory&toolsets=uto')).toEqual([DEFAULT_TOOLSET, 'memory', 'uto'].sort());
    expect(names('/mcp/x/ext/')).toEqual([DEFAULT_TOOLSET, 'ext'].sort());
    expect(names('/mcp/x/ext?toolsets=nlp')).toEqual([DEFAULT_TOOLSET, 'ext', 'nlp'].sort());
    expect(names('/mcp/x/all')).toBe('all');
    expect(names('/mcp?toolsets=memory,all')).toBe('all');
    expect(() => askedToolsets('/mcp?toolsets=memory,nope,Uto', '/mcp')).toThrow(
      new UnknownToolset(`Unknown toolsets 'nope', 'Uto': the toolsets are ${Object.keys(TOOLSETS).join(', ')}, or all for every tool`),
    );
    expect(() => askedToolsets(`/mcp?toolsets=${'memory,'.repeat(40)}`, '/mcp')).toThrow(/At most 32 toolsets/);
  });
});
