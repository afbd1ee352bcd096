// No N+1 anywhere in the graph (issue 18): every list field of the schema — the fields of Query that
// return a list or a connection, and the list fields of the objects Query returns — is asked for with a
// two-level selection (each item's fields, and the fields of each item's objects and lists) once with 5
// items and once with 50, and the request with 50 must run no more SQL statements than the one with 5. A
// list of Node items is read again through `nodes(ids:)`, which must not grow either.
//
// The fields are found by walking the schema, so a list field added later fails here until it has a
// fixture below (how to make its list hold n items, and the arguments to ask for it with) or is named in
// FIXED_LISTS. Fixtures seed their own agents and rows: one row through the API or a plain INSERT, then
// copies of it in SQL (see `topUp`), which is what makes 50 items cheap. Lists that span the marketplace
// (the catalog, priced offers) also hold other fixtures' rows; what is checked is that 50 or more of them
// cost no more than 5 or more.
//
// Statements are counted as the server's `pg` clients issue them (test/support/statements.ts), on both
// databases.
import {
  getNamedType,
  getNullableType,
  isInterfaceType,
  isLeafType,
  isListType,
  isNonNullType,
  isObjectType,
  type GraphQLField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLOutputType,
} from 'graphql';
import { schema } from '../../schema/index';
import { api, gql, registerAgent, registerService, startServer, uniqueName, uniqueSlug, type TestServer } from '../support/server';
import { within } from '../support/expect';
import { watchStatements, type Counted, type StatementWatch } from '../support/statements';
import { newSwarmId } from '../../src/platform/ids';

const ADMIN_KEY = `key_admin_${'N'.repeat(40)}`;

/**
 * Lists whose length is fixed by the code, not by data: no fixture can make them hold 50 items, and
 * nothing about them grows.
 */
const FIXED_LISTS: Record<string, string> = {
  'Query.tiers': 'the four reputation tiers, a constant table',
  'AcpPaymentTerms.phases': "ACP's five phases, constants",
  'Instructions.steps': 'the onboarding steps, a constant script',
  'CapabilityCatalog.hierarchy': "the catalog's groups, a constant table",
  'WebmcpManifest.tools': "the marketplace's own tool table",
  'OutboxState.kinds': 'one row per kind of delivery, a handful fixed by the code',
  'Service.qualityDays': 'at most 30 days, read for every service of a request in one statement',
};

// ---------------------------------------------------------------------------------------------------
// The walk

/** One list to check: a field of Query, or a list field of an object that a field of Query returns. */
interface Target {
  /** `Query.tickets`, or `Ticket.comments` reached through `Query.ticket`. */
  coordinate: string;
  /** The field of Query the request starts from. */
  root: GraphQLField<unknown, unknown>;
  /** The list field inside the root's object, when the list is one level down. */
  nested?: GraphQLField<unknown, unknown>;
}

const isConnection = (type: GraphQLOutputType) => {
  const t = getNullableType(type);
  return isObjectType(t) && 'edges' in t.getFields() && 'pageInfo' in t.getFields();
};
const isObjectList = (type: GraphQLOutputType) => isListType(getNullableType(type)) && !isLeafType(getNamedType(type));
const isListField = (f: GraphQLField<unknown, unknown>) => isConnection(f.type) || isObjectList(f.type);
const takesNoRequiredArgs = (f: GraphQLField<unknown, unknown>) => f.args.every((a) => !isNonNullType(a.type));

/** The item type of a list or a connection. */
function itemType(type: GraphQLOutputType): GraphQLNamedType {
  if (!isConnection(type)) return getNamedType(type);
  const edge = getNamedType((getNullableType(type) as GraphQLObjectType).getFields().edges.type) as GraphQLObjectType;
  return getNamedType(edge.getFields().node.type);
}

function walk(): Target[] {
  const targets: Target[] = [];
  for (const root of Object.values(schema.getQueryType()!.getFields())) {
    if (root.name === 'nodes') continue; // asked with the ids of every list of Node items instead
    if (isListField(root)) targets.push({ coordinate: `Query.${root.name}`, root });
    else {
      const type = getNamedType(root.type);
      if (!isObjectType(type)) continue;
      for (const nested of Object.values(type.getFields())) {
        if (isListField(nested)) targets.push({ coordinate: `${type.name}.${nested.name}`, root, nested });
      }
    }
  }
  return targets;
}

/** Every field of `type` that needs no argument: leaves as they are, objects and lists with their leaves. */
function selection(type: GraphQLNamedType, depth: number): string {
  if (!isObjectType(type) && !isInterfaceType(type)) return '__typename';
  const parts: string[] = ['__typename'];
  for (const f of Object.values(type.getFields())) {
    if (!takesNoRequiredArgs(f)) continue;
    const named = getNamedType(f.type);
    if (isLeafType(named)) parts.push(f.name);
    else if (depth < 2) {
      parts.push(
        isConnection(f.type) ? `${f.name} { totalCount edges { node { ${selection(itemType(f.type), 2)} } } }` : `${f.name} { ${selection(named, 2)} }`,
      );
    }
  }
  return parts.join(' ');
}

const listSelection = (type: GraphQLOutputType) =>
  isConnection(type)
    ? `{ totalCount edges { cursor node { ${selection(itemType(type), 1)} } } pageInfo { hasNextPage endCursor } }`
    : `{ ${selection(itemType(type), 1)} }`;

/** `($a: T!, …)` and `(a: $a, …)` for the arguments given, typed as the schema types them. */
function argumentsOf(field: GraphQLField<unknown, unknown>, values: Record<string, unknown>, prefix: string) {
  const given = field.args.filter((a) => values[a.name] !== undefined);
  return {
    declarations: given.map((a) => `$${prefix}${a.name}: ${a.type}`),
    use: given.length ? `(${given.map((a) => `${a.name}: $${prefix}${a.name}`).join(', ')})` : '',
    variables: Object.fromEntries(given.map((a) => [`${prefix}${a.name}`, values[a.name]])),
  };
}

function documentFor(target: Target, seeded: Seeded) {
  const list = target.nested ?? target.root;
  const listArgs = { ...(isConnection(list.type) ? { first: seeded.first ?? 100 } : {}), ...seeded.args };
  const inner = argumentsOf(list, listArgs, 'l_');
  if (!target.nested) {
    return {
      query: `query Walk${inner.declarations.length ? `(${inner.declarations})` : ''} { list: ${list.name}${inner.use} ${listSelection(list.type)} }`,
      variables: inner.variables,
    };
  }
  const outer = argumentsOf(target.root, seeded.parentArgs ?? {}, 'p_');
  const declarations = [...outer.declarations, ...inner.declarations];
  return {
    query: `query Walk${declarations.length ? `(${declarations})` : ''} { parent: ${target.root.name}${outer.use} { list: ${list.name}${inner.use} ${listSelection(list.type)} } }`,
    variables: { ...outer.variables, ...inner.variables },
  };
}

// ---------------------------------------------------------------------------------------------------
// Seeding

interface Seeded {
  /** The caller (none: anonymous). */
  key?: string;
  /** Arguments of the list field; connections get `first: 100` unless `first` says otherwise. */
  args?: Record<string, unknown>;
  first?: number;
  /** Arguments of the field of Query, for a list one level down. */
  parentArgs?: Record<string, unknown>;
  /** The list is cut at this length by design (a top ten, a window of days): it holds min(n, cap). */
  cap?: number;
}

/** Makes the list hold (at least) n items, n growing from call to call, and says how to ask for it. */
type Fixture = (n: number) => Promise<Seeded>;

let server: TestServer;
let watch: StatementWatch;

async function sql<T = any>(text: string, params: unknown[] = []): Promise<T[]> {
  return server.app.services.sql.query<T>(text, params);
}

/** A GraphQL operation that must succeed (seeding). */
async function must<T = any>(query: string, variables: Record<string, unknown>, key?: string): Promise<T> {
  const res = await gql<T>(server, query, variables, key);
  if (res.body.errors?.length || !res.body.data) throw new Error(`${query.slice(0, 60)}…: ${res.status} ${res.text}`);
  return res.body.data;
}

interface TableInfo {
  columns: { name: string; type: string; hasDefault: boolean; generated: boolean }[];
  /** Columns of a primary key or unique index. */
  keyed: Set<string>;
  /** Columns of a foreign key. */
  foreign: Set<string>;
}

const tables = new Map<string, Promise<TableInfo>>();

function tableInfo(table: string): Promise<TableInfo> {
  let info = tables.get(table);
  if (!info) {
    info = (async () => {
      const columns = await sql<{ name: string; type: string; has_default: boolean; generated: boolean }>(
        `SELECT column_name AS name, udt_name AS type, column_default IS NOT NULL AS has_default, is_generated = 'ALWAYS' AS generated
         FROM information_schema.columns WHERE table_schema = 'public' AND table_name = $1 ORDER BY ordinal_position`,
        [table],
      );
      const keyed = await sql<{ name: string }>(
        `SELECT DISTINCT a.attname AS name FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
         WHERE i.indrelid = $1::regclass AND i.indisunique`,
        [`public.${table}`],
      );
      const foreign = await sql<{ name: string }>(
        `SELECT DISTINCT a.attname AS name FROM pg_constraint c JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY(c.conkey)
         WHERE c.conrelid = $1::regclass AND c.contype = 'f'`,
        [`public.${table}`],
      );
      return {
        columns: columns.map((c) => ({ name: c.name, type: c.type, hasDefault: c.has_default, generated: c.generated })),
        keyed: new Set(keyed.map((k) => k.name)),
        foreign: new Set(foreign.map((k) => k.name)),
      };
    })();
    tables.set(table, info);
  }
  return info;
}

/**
 * Makes `table` hold n rows matching `where` by copying the first of them: every column is copied except
 * the keys, which get fresh values (a new uuid, a suffix, the next number, a second later), and the
 * columns `set` gives as SQL over `src` (the copied row) and `g` (1, 2, 3… per copy). Foreign-key
 * columns are kept, so a copy belongs where its original does.
 */
async function topUp(table: string, where: string, params: unknown[], n: number, set: Record<string, string> = {}) {
  const [{ count }] = await sql<{ count: number }>(`SELECT count(*)::int AS count FROM ${table} WHERE ${where}`, params);
  if (count >= n) return;
  if (count === 0) throw new Error(`nothing in ${table} to copy`);
  const info = await tableInfo(table);
  const names: string[] = [];
  const values: string[] = [];
  for (const c of info.columns) {
    if (c.generated) continue;
    let value = set[c.name];
    if (value === undefined && info.keyed.has(c.name) && !info.foreign.has(c.name)) {
      if (c.hasDefault && c.type.startsWith('int')) continue; // a sequence
      if (c.type === 'uuid') value = 'gen_random_uuid()';
      else if (c.type.startsWith('int')) value = `(SELECT coalesce(max("${c.name}"), 0) FROM ${table}) + g`;
      else if (c.type.startsWith('timestamp')) value = `(SELECT max("${c.name}") FROM ${table}) + g * interval '1 second'`;
      // A long key (an id with a prefix) keeps its length and shape: its tail is replaced by hex digits.
      else
        value = `CASE WHEN length(src."${c.name}") > 16 THEN left(src."${c.name}", -12) ELSE src."${c.name}" || '-' END || substr(md5(random()::text), 1, 12)`;
    }
    names.push(`"${c.name}"`);
    values.push(value ?? `src."${c.name}"`);
  }
  await sql(
    `INSERT INTO ${table} (${names.join(', ')})
     SELECT ${values.join(', ')} FROM (SELECT * FROM ${table} WHERE ${where} ORDER BY ctid LIMIT 1) src, generate_series(1, ${n - count}) g`,
    params,
  );
  // Written beside the server, not served by it: its kept answers (a ranking read at 5 items) are emptied
  // by the database's change notification a moment after the commit, on PostgreSQL after the next request
  // may have been answered. Emptied here, as a write the server served empties them.
  server.app.services.readCache.flush();
}

/** A fixture whose setup runs once, on first use. */
function fixture(setup: () => Promise<Fixture>): Fixture {
  let made: Promise<Fixture> | undefined;
  return async (n) => (await (made ??= setup()))(n);
}

const agent = () => registerAgent(server);

const ticketInput = { type: 'bug', subject: 'It broke', description: 'Something broke while summarising.', priority: 'high', agentName: 'reporter' };

/** Paid services, each the only provider of a capability of its own: n paid offers of n capabilities. */
const pricedCatalog = () =>
  fixture(async () => {
    const owner = await agent();
    const prefix = uniqueSlug('aaa-priced');
    await registerService(server, owner.key, { capabilities: [prefix], cost_per_call: 7 });
    return async (n) => {
      await topUp('services', 'agent_id = $1', [owner.agentId], n, {
        capabilities: `ARRAY[src.capabilities[1] || '-' || g || substr(md5(random()::text), 1, 6)]`,
      });
      return {};
    };
  });

/** n active free services of one agent, all offering one capability of their own. */
const servicesOfOne = () =>
  fixture(async () => {
    const owner = await agent();
    const capability = uniqueSlug('svc');
    await registerService(server, owner.key, { capabilities: [capability], cost_per_call: 0, pricing_model: 'free' });
    return async (n) => {
      await topUp('services', 'agent_id = $1', [owner.agentId], n);
      return { key: owner.key, args: { capability } };
    };
  });

/** A capability with n providers, for resolve and providers. */
const providersOf = (mode: 'input' | 'capability'): Fixture =>
  fixture(async () => {
    const caller = await agent();
    const services = servicesOfOne();
    return async (n) => {
      const { args } = await services(n);
      const capability = args!.capability as string;
      return mode === 'input'
        ? { key: caller.key, parentArgs: { input: { capability, limit: 100 } } }
        : { key: caller.key, parentArgs: { capability, limit: 100 } };
    };
  });

/** Tickets another agent opened about the caller's service: each is the caller's to read through the service. */
const ticketsAboutMyService = () =>
  fixture(async () => {
    const owner = await agent();
    const reporter = await agent();
    const service = await registerService(server, owner.key, { cost_per_call: 0, pricing_model: 'free' });
    const opened = await api(server)('POST', '/execute', {
      key: reporter.key,
      body: { capability: 'support-ticket', input: { ...ticketInput, targetService: service.service_key } },
    });
    if (opened.status !== 200) throw new Error(opened.text);
    return async (n) => {
      await topUp('tickets', 'service_id = $1', [service.service_id], n);
      return { key: owner.key };
    };
  });

/** One ticket with n comments and n moves. */
const oneTicket = () =>
  fixture(async () => {
    const me = await agent();
    const opened = await api(server)('POST', '/execute', { key: me.key, body: { capability: 'support-ticket', input: ticketInput } });
    const ticketKey = opened.body.result.ticket_key as string;
    await must(
      'mutation($k: String!, $i: TicketCommentInput!) { addTicketComment(ticketKey: $k, input: $i) { commentId } }',
      { k: ticketKey, i: { content: 'A first comment' } },
      me.key,
    );
    await must(
      'mutation($k: String!, $i: TicketStatusInput!) { updateTicketStatus(ticketKey: $k, input: $i) { status } }',
      { k: ticketKey, i: { status: 'in_progress' } },
      me.key,
    );
    const [ticket] = await sql<{ id: string }>('SELECT id FROM tickets WHERE ticket_key = $1', [ticketKey]);
    return async (n) => {
      await topUp('ticket_comments', 'ticket_id = $1', [ticket.id], n);
      await topUp('state_changes', "subject_type = 'ticket' AND subject_id = $1", [ticketKey], n);
      return { key: me.key, parentArgs: { ticketKey } };
    };
  });

/** Rows of the caller's own, one inserted and the rest copied. */
function ownRows(table: string, insert: (agentId: string) => [string, unknown[]], column = 'agent_id'): Fixture {
  return fixture(async () => {
    const me = await agent();
    const [text, params] = insert(me.agentId);
    await sql(text, params);
    return async (n) => {
      await topUp(table, `${column} = $1`, [me.agentId], n);
      return { key: me.key };
    };
  });
}

const executions = () =>
  ownRows('executions', (id) => [
    `INSERT INTO executions (id, agent_id, capability, status, cost_cents, latency_ms, mode) VALUES (gen_random_uuid(), $1, 'summarize', 'success', 3, 40, 'auto')`,
    [id],
  ]);

/** Executions of the caller on n days (or of n capabilities), for the analytics. */
const executionsSpread = (spread: 'days' | 'capabilities'): Fixture =>
  fixture(async () => {
    const me = await agent();
    await sql(
      `INSERT INTO executions (id, agent_id, capability, status, cost_cents, latency_ms) VALUES (gen_random_uuid(), $1, 'summarize', 'success', 3, 40)`,
      [me.agentId],
    );
    return async (n) => {
      await topUp(
        'executions',
        'agent_id = $1',
        [me.agentId],
        n,
        spread === 'days'
          ? { created_at: `now() - (g + (SELECT count(*) FROM executions WHERE agent_id = src.agent_id)) * interval '1 day'` }
          : { capability: `'cap-' || g || substr(md5(random()::text), 1, 8)` },
      );
      return { key: me.key, cap: spread === 'days' ? 25 : undefined };
    };
  });

/** The showcase listing spans the marketplace (every fixture's Star services): a page of n of it. */
const showcaseListing = (): Fixture => {
  const stars = showcase();
  return async (n) => ({ ...(await stars(n)), cap: undefined, first: n });
};

/** A Trusted owner's service called on n days (or for n capabilities), for its analytics (a beta feature). */
const serviceCalls = (spread: 'days' | 'capabilities'): Fixture =>
  fixture(async () => {
    const owner = await agent();
    await sql(`UPDATE agents SET reputation = 70 WHERE id = $1`, [owner.agentId]);
    const svc = await registerService(server, owner.key, { capabilities: [uniqueSlug('called')], cost_per_call: 0, pricing_model: 'free' });
    await sql(
      `INSERT INTO executions (id, agent_id, capability, service_id, status, cost_cents, latency_ms, mode) VALUES (gen_random_uuid(), $1, 'summarize', $2, 'success', 3, 40, 'auto')`,
      [owner.agentId, svc.service_id],
    );
    return async (n) => {
      await topUp(
        'executions',
        'service_id = $1',
        [svc.service_id],
        n,
        spread === 'days'
          ? { created_at: `now() - (g + (SELECT count(*) FROM executions WHERE service_id = src.service_id)) * interval '1 day'` }
          : { capability: `'cap-' || g || substr(md5(random()::text), 1, 8)` },
      );
      // Each call's attempt of the service, as the execution ledger records it.
      await sql(
        `INSERT INTO execution_attempts (execution_id, ordinal, service_id, service_key, outcome, latency_ms, price_cents, created_at)
         SELECT e.id, 1, e.service_id, $2, 'success', 40, 3, e.created_at FROM executions e
         WHERE e.service_id = $1 AND NOT EXISTS (SELECT 1 FROM execution_attempts a WHERE a.execution_id = e.id)`,
        [svc.service_id, svc.service_key],
      );
      return { key: owner.key, parentArgs: { serviceKey: svc.service_key, days: 90 } };
    };
  });

const disputes = () =>
  fixture(async () => {
    const me = await agent();
    await sql(
      `INSERT INTO disputes (id, agent_id, form, kind, description, status) VALUES (gen_random_uuid(), $1, 'service', 'quality', 'Wrong answers', 'under_review')`,
      [me.agentId],
    );
    return async (n) => {
      await topUp('disputes', 'agent_id = $1', [me.agentId], n);
      return { key: me.key };
    };
  });

/** Transactions of one agent (by day or by capability, for the revenue report). */
const transactions = (spread?: 'days' | 'capabilities'): Fixture =>
  fixture(async () => {
    const me = await agent();
    await sql(
      `INSERT INTO transactions (id, agent_id, kind, amount_cents, capability, latency_ms) VALUES (gen_random_uuid(), $1, 'charge', 5, 'summarize', 30)`,
      [me.agentId],
    );
    return async (n) => {
      const set: Record<string, string> =
        spread === 'days'
          ? { created_at: `now() - (g + (SELECT count(*) FROM transactions WHERE agent_id = src.agent_id)) * interval '1 day'` }
          : spread === 'capabilities'
            ? { capability: `'revenue-' || g || substr(md5(random()::text), 1, 8)`, amount_cents: '1000000' }
            : {};
      await topUp('transactions', 'agent_id = $1', [me.agentId], n, set);
      return spread ? { key: ADMIN_KEY, parentArgs: { days: 365 } } : { key: me.key };
    };
  });

const sparks = () =>
  fixture(async () => {
    const me = await agent();
    await sql(`INSERT INTO sparks (id, agent_id, title, content, spark_type) VALUES (gen_random_uuid(), $1, 'A finding', 'What was found', 'insight')`, [
      me.agentId,
    ]);
    return async (n) => {
      await topUp('sparks', 'agent_id = $1', [me.agentId], n);
      return { key: me.key, args: { agentId: me.agentId }, first: 50 };
    };
  });

const memoryStore = (access: 'private' | 'public') =>
  fixture(async () => {
    const me = await agent();
    await must(
      'mutation($i: CreateMemoryStoreInput!) { createMemoryStore(input: $i) { storeId } }',
      { i: { name: uniqueName('store'), storeType: 'kv', accessLevel: access } },
      me.key,
    );
    return async (n) => {
      await topUp('memory_stores', 'agent_id = $1', [me.agentId], n);
      return { key: me.key };
    };
  });

/** One kv store with n live entries, the first of them with n versions. */
const memoryEntries = () =>
  fixture(async () => {
    const me = await agent();
    const { createMemoryStore } = await must(
      'mutation($i: CreateMemoryStoreInput!) { createMemoryStore(input: $i) { storeId } }',
      { i: { name: uniqueName('entries'), storeType: 'kv' } },
      me.key,
    );
    const storeId = createMemoryStore.storeId as string;
    await must(
      'mutation($s: ID!, $i: WriteMemoryEntriesInput!) { writeMemoryEntries(storeId: $s, input: $i) { written } }',
      { s: storeId, i: { entries: [{ key: 'k', value: { n: 1 } }] } },
      me.key,
    );
    return async (n) => {
      await topUp('memory_entries', 'store_id = $1', [storeId], n);
      await topUp('memory_entry_versions', "store_id = $1 AND key = 'k'", [storeId], n, { key: 'src.key' });
      await sql(
        "UPDATE memory_entries SET version = (SELECT max(version) FROM memory_entry_versions WHERE store_id = $1 AND key = 'k') WHERE store_id = $1 AND key = 'k'",
        [storeId],
      );
      return { key: me.key, args: { storeId, key: 'k', input: { prefix: 'k', limit: 100 } } };
    };
  });

const webhooks = () =>
  fixture(async () => {
    const me = await agent();
    await must(
      'mutation($i: WebhookInput!) { createWebhook(input: $i) { webhookId } }',
      { i: { url: 'https://receiver.example.com/hook', events: ['agent.updated'] } },
      me.key,
    );
    return async (n) => {
      await topUp('webhooks', 'agent_id = $1', [me.agentId], n);
      return { key: me.key };
    };
  });

/** Mandates the caller granted, one in force and the rest revoked, each with its day's and month's use. */
const mandates = () =>
  fixture(async () => {
    const me = await agent();
    const { createSubAgent } = await must(
      'mutation($p: ID!, $i: CreateSubAgentInput!) { createSubAgent(parentId: $p, input: $i) { agentId } }',
      { p: me.agentId, i: { name: uniqueName('sub'), description: 'Spends within a mandate', autonomyLevel: 'EXECUTE_ONLY', authorityScope: [] } },
      me.key,
    );
    await must(
      'mutation($i: GrantMandateInput!) { grantMandate(input: $i) { mandateId } }',
      { i: { agentId: createSubAgent.agentId, dailyCents: 100 } },
      me.key,
    );
    return async (n) => {
      await topUp('mandates', 'grantor_id = $1', [me.agentId], n, { revoked_at: 'now()' });
      return { key: me.key };
    };
  });

/** One webhook with n deliveries (of one event), each with an attempt. */
const deliveries = () =>
  fixture(async () => {
    const me = await agent();
    const { createWebhook } = await must(
      'mutation($i: WebhookInput!) { createWebhook(input: $i) { webhookId } }',
      { i: { url: 'https://receiver.example.com/hook', events: ['*'] } },
      me.key,
    );
    const webhookId = createWebhook.webhookId as string;
    await must('mutation($i: UpdateMeInput!) { updateMe(input: $i) { id } }', { i: { description: 'Now it has a delivery' } }, me.key);
    await within(10_000, async () => (await sql('SELECT 1 FROM deliveries WHERE webhook_id = $1', [webhookId])).length > 0);
    // Parked far in the future: the dispatcher leaves it alone.
    await sql("UPDATE deliveries SET status = 'failed', next_attempt_at = now() + interval '1 year' WHERE webhook_id = $1", [webhookId]);
    return async (n) => {
      await topUp('deliveries', 'webhook_id = $1', [webhookId], n);
      await sql(
        `INSERT INTO delivery_attempts (id, delivery_id, attempt, status_code, latency_ms)
       SELECT gen_random_uuid(), d.id, 1, 500, 12 FROM deliveries d WHERE d.webhook_id = $1 AND NOT EXISTS (SELECT 1 FROM delivery_attempts x WHERE x.delivery_id = d.id)`,
        [webhookId],
      );
      return { key: me.key, args: { webhookId } };
    };
  });

/** Sub-keys the caller holds for another agent's service. */
const subKeys = () =>
  fixture(async () => {
    const provider = await agent();
    const service = await registerService(server, provider.key, { cost_per_call: 0, pricing_model: 'free' });
    const me = await agent();
    await must('mutation($s: String!) { provisionSubKey(serviceKey: $s) { subKeyId } }', { s: service.service_key }, me.key);
    return async (n) => {
      await topUp('sub_keys', 'agent_id = $1', [me.agentId], n);
      return { key: me.key };
    };
  });

/** n services of the caller, each with its ticket endpoint. */
const ticketEndpoints = () =>
  fixture(async () => {
    const me = await agent();
    const service = await registerService(server, me.key, { cost_per_call: 0, pricing_model: 'free' });
    await must(
      'mutation($i: RegisterTicketEndpointInput!) { registerTicketEndpoint(input: $i) { registered } }',
      { i: { serviceKey: service.service_key, ticketReceiveUrl: 'https://receiver.example.com/tickets' } },
      me.key,
    );
    return async (n) => {
      await topUp('services', 'agent_id = $1', [me.agentId], n);
      await topUp('ticket_endpoints', 'agent_id = $1', [me.agentId], n, {
        service_id: `(SELECT s.id FROM services s WHERE s.agent_id = src.agent_id AND NOT EXISTS (SELECT 1 FROM ticket_endpoints e WHERE e.service_id = s.id) ORDER BY s.id OFFSET g - 1 LIMIT 1)`,
      });
      return { key: me.key };
    };
  });

const subscriptions = () =>
  fixture(async () => {
    const me = await agent();
    const { createSubscription } = await must(
      'mutation($i: SubscriptionInput!) { createSubscription(input: $i) { id } }',
      { i: { capabilityId: 'summarize', schedule: '0 0 1 1 *', deliveryMethod: 'sse', inputPayload: { text: 'x' } } },
      me.key,
    );
    const id = createSubscription.id as string;
    await sql(
      `INSERT INTO subscription_runs (id, subscription_id, seq, scheduled_for, status, result, started_at, finished_at)
     VALUES (gen_random_uuid(), $1, 1, now() - interval '1 day', 'success', '{"ok":true}', now(), now())`,
      [id],
    );
    return async (n) => {
      await topUp('capability_subscriptions', 'agent_id = $1', [me.agentId], n);
      await topUp('subscription_runs', 'subscription_id = $1', [id], n);
      return { key: me.key, args: { id } };
    };
  });

const streamingSessions = () =>
  fixture(async () => {
    const me = await agent();
    await must('mutation($i: CreateStreamingSessionInput!) { createStreamingSession(input: $i) { sessionId } }', { i: { capabilityId: 'summarize' } }, me.key);
    return async (n) => {
      await topUp('streaming_sessions', 'agent_id = $1', [me.agentId], n);
      return { key: me.key };
    };
  });

/** Finished swarms of the caller, the first with n steps (copies of it carry none). */
const swarms = () =>
  fixture(async () => {
    const me = await agent();
    const id = newSwarmId();
    await sql(
      `INSERT INTO swarm_sessions (id, agent_id, goal, strategy, status, step_count, completed_steps, finished_at, updated_at) VALUES ($1, $2, 'A goal', 'parallel', 'completed', 1, 1, now(), now())`,
      [id, me.agentId],
    );
    await sql(
      `INSERT INTO swarm_steps (id, session_id, ordinal, capability, input, status, execution_id, result) VALUES (gen_random_uuid(), $1, 1, 'summarize', '{}', 'succeeded', gen_random_uuid(), '{"ok":true}')`,
      [id],
    );
    return async (n) => {
      await topUp('swarm_sessions', 'agent_id = $1', [me.agentId], n);
      await topUp('swarm_steps', 'session_id = $1', [id], n, { ordinal: `(SELECT max(ordinal) FROM swarm_steps WHERE session_id = src.session_id) + g` });
      return { key: me.key, parentArgs: { id } };
    };
  });

/** Tasks of the caller under a budget, each delegated to its sub-agent; the first with n delegations and n executions. */
const tasks = () =>
  fixture(async () => {
    const me = await agent();
    const { createSubAgent } = await must(
      'mutation($p: ID!, $i: CreateSubAgentInput!) { createSubAgent(parentId: $p, input: $i) { agentId } }',
      { p: me.agentId, i: { name: uniqueName('sub'), description: 'Does the work', autonomyLevel: 'EXECUTE_ONLY', authorityScope: ['summarize'] } },
      me.key,
    );
    const { createTask } = await must(
      'mutation($i: CreateTaskInput!) { createTask(input: $i) { taskId } }',
      { i: { intent: 'Summarise the report', successCriteria: ['summary present'], budget: 500 } },
      me.key,
    );
    const id = createTask.taskId as string;
    await must('mutation($id: String!, $s: ID!) { delegateTask(id: $id, subAgentId: $s) { task { status } } }', { id, s: createSubAgent.agentId }, me.key);
    await sql(
      `INSERT INTO task_executions (id, task_id, delegate_id, execution_id, capability, status, criteria_met, judgment, result, executor_delta)
     VALUES (gen_random_uuid(), $1, $2, gen_random_uuid(), 'summarize', 'success', true, '[{"criterion":"summary present","met":true,"rule":"present","detail":"ok"}]', '{"summary":"ok"}', 1)`,
      [id, createSubAgent.agentId],
    );
    await sql(`INSERT INTO task_holds (id, task_id, cents, expires_at) VALUES (gen_random_uuid(), $1, 5, now() + interval '1 hour')`, [id]);
    return async (n) => {
      await topUp('tasks', 'agent_id = $1', [me.agentId], n);
      await topUp('task_delegations', 'task_id = $1', [id], n);
      await topUp('task_executions', 'task_id = $1', [id], n);
      return { key: me.key, parentArgs: { id } };
    };
  });

/** The caller's skills: its drafts, or (published) what the marketplace lists under a word of their own. */
const skills = (published: boolean) =>
  fixture(async () => {
    const me = await agent();
    const word = uniqueSlug('skillword').replace(/[^a-z0-9]/g, '');
    const { createSkill } = await must(
      'mutation($i: CreateSkillInput!) { createSkill(input: $i) { skillId } }',
      { i: { name: word.slice(0, 40), runtime: 'python', entrypoint: 'main.run', description: `Finds ${word}`, instructions: 'Run it.' } },
      me.key,
    );
    const id = createSkill.skillId as string;
    if (published) await must('mutation($id: ID!) { publishSkill(id: $id) { published } }', { id }, me.key);
    return async (n) => {
      await topUp('skills', 'agent_id = $1', [me.agentId], n);
      if (published) await topUp('skill_versions', 'skill_id = $1', [id], n);
      return { key: me.key, args: { q: word, id } };
    };
  });

/** n published skills of one agent, each installed by the caller. */
const installedSkills = () =>
  fixture(async () => {
    const owner = await agent();
    const me = await agent();
    const { createSkill } = await must(
      'mutation($i: CreateSkillInput!) { createSkill(input: $i) { skillId } }',
      { i: { name: uniqueSlug('inst').slice(0, 40), runtime: 'python', entrypoint: 'main.run' } },
      owner.key,
    );
    await must('mutation($id: ID!) { publishSkill(id: $id) { published } }', { id: createSkill.skillId }, owner.key);
    await must('mutation($id: ID!) { installSkill(id: $id) { installed } }', { id: createSkill.skillId }, me.key);
    return async (n) => {
      await topUp('skills', 'agent_id = $1', [owner.agentId], n);
      await sql(
        `INSERT INTO skill_versions (skill_id, version, content_hash, content, published_at)
       SELECT s.id, v.version, v.content_hash, v.content, v.published_at FROM skills s, skill_versions v
       WHERE s.agent_id = $1 AND v.skill_id = $2 AND NOT EXISTS (SELECT 1 FROM skill_versions x WHERE x.skill_id = s.id)`,
        [owner.agentId, createSkill.skillId],
      );
      await topUp('skill_installs', 'agent_id = $1', [me.agentId], n, {
        skill_id: `(SELECT s.id FROM skills s WHERE s.agent_id = '${owner.agentId}' AND NOT EXISTS (SELECT 1 FROM skill_installs i WHERE i.skill_id = s.id AND i.agent_id = src.agent_id) ORDER BY s.id OFFSET g - 1 LIMIT 1)`,
      });
      return { key: me.key };
    };
  });

/** The caller's UTO tickets, the first with n moves in its history. */
const utoTickets = () =>
  fixture(async () => {
    const me = await agent();
    const { createUtoTicket } = await must(
      'mutation($i: CreateUtoTicketInput!) { createUtoTicket(input: $i) { ticketId } }',
      { i: { intent: 'Find a yield', domain: 'research', context: { a: 1 } } },
      me.key,
    );
    const id = createUtoTicket.ticketId as string;
    return async (n) => {
      await topUp('uto_tickets', 'agent_id = $1', [me.agentId], n);
      await sql(
        `UPDATE uto_tickets SET state_history = (SELECT jsonb_agg(jsonb_build_object('from', 'submitted', 'to', 'validated', 'triggered_by', 'system', 'by', 'marketplace', 'at', now())) FROM generate_series(1, $2))
       WHERE id = $1`,
        [id, n],
      );
      return { key: me.key, parentArgs: { id } };
    };
  });

const utoSpecialists = () =>
  fixture(async () => {
    const me = await agent();
    const domain = uniqueSlug('dom')
      .replace(/[^a-z0-9-]/g, '')
      .slice(0, 40);
    await must(
      'mutation($i: RegisterUtoSpecialistInput!) { registerUtoSpecialist(input: $i) { agentId } }',
      { i: { domain, capabilities: ['summarize'] } },
      me.key,
    );
    return async (n) => {
      await topUp('agents', "name LIKE 'uto-specialist-%' OR id = $1", [me.agentId], n, { name: `'uto-specialist-' || substr(md5(random()::text), 1, 16)` });
      await topUp('uto_specialists', 'domain = $1', [domain], n, {
        agent_id: `(SELECT a.id FROM agents a WHERE (a.name LIKE 'uto-specialist-%' OR a.id = src.agent_id) AND NOT EXISTS (SELECT 1 FROM uto_specialists u WHERE u.agent_id = a.id AND u.domain = src.domain) ORDER BY a.id OFFSET g - 1 LIMIT 1)`,
        domain: 'src.domain',
      });
      return { key: me.key, args: { domain } };
    };
  });

/** The caller's polling notification subscriptions, the first with n events to read. */
const utoNotifications = () =>
  fixture(async () => {
    const me = await agent();
    const { subscribeUtoNotifications } = await must(
      'mutation($i: SubscribeUtoNotificationsInput!) { subscribeUtoNotifications(input: $i) { subscriptionId } }',
      { i: { eventTypes: ['*'], deliveryType: 'polling' } },
      me.key,
    );
    const subscriptionId = subscribeUtoNotifications.subscriptionId as string;
    await sql(
      `INSERT INTO uto_events (agent_id, seq, event_id, type, domain, ticket_id, data, created_at)
     VALUES ($1, (SELECT coalesce(max(start_seq), 0) + 1 FROM uto_subscriptions WHERE id = $2), 'evt_first', 'uto.ticket.created', 'research', 'uto_x', '{}', now())`,
      [me.agentId, subscriptionId],
    );
    return async (n) => {
      await topUp('uto_subscriptions', 'agent_id = $1', [me.agentId], n);
      await topUp('uto_events', 'agent_id = $1', [me.agentId], n, { agent_id: 'src.agent_id' });
      return { key: me.key, parentArgs: { subscriptionId, limit: 500 } };
    };
  });

/** Gateway events addressed to the caller's external agent, polled from the start. */
const gatewayEvents = () =>
  fixture(async () => {
    const me = await agent();
    const [{ id }] = await sql<{ id: string }>(
      `INSERT INTO external_agents (id, owner_id, instance_url, name, capabilities, secret, updated_at)
     VALUES (gen_random_uuid(), $1, 'https://instance.example.com', 'instance', '{}', 'whsec_x', now()) RETURNING id`,
      [me.agentId],
    );
    await sql(`INSERT INTO gateway_streams (owner_id, last_seq, consumed_seq) VALUES ($1, 1, 0)`, [me.agentId]);
    await sql(
      `INSERT INTO gateway_events (owner_id, seq, event_id, type, external_agent_id, data, created_at) VALUES ($1, 1, 'gev_first', 'delegation.created', $2, '{}', now())`,
      [me.agentId, id],
    );
    return async (n) => {
      // The owner is part of the key but no foreign key: kept by hand.
      await topUp('gateway_events', 'owner_id = $1', [me.agentId], n, { owner_id: 'src.owner_id' });
      await sql(`UPDATE gateway_streams SET last_seq = (SELECT max(seq) FROM gateway_events WHERE owner_id = $1) WHERE owner_id = $1`, [me.agentId]);
      return { key: me.key, parentArgs: { after: 0, limit: 100 } };
    };
  });

/** Conglomerates the caller founded, the first with n ledger entries and n days of operation. */
const conglomerates = () =>
  fixture(async () => {
    const me = await agent();
    const { createConglomerate } = await must(
      'mutation($i: CreateConglomerateInput!) { createConglomerate(input: $i) { conglomerateId } }',
      { i: { goal: 'Pool the work', maxBudgetUsd: 100 } },
      me.key,
    );
    const id = createConglomerate.conglomerateId as string;
    await sql(
      `INSERT INTO conglomerate_entries (id, conglomerate_id, agent_id, kind, cost_cents, proceeds_cents, description) VALUES (gen_random_uuid(), $1, $2, 'trade', 100, 150, 'A trade')`,
      [id, me.agentId],
    );
    return async (n) => {
      await topUp('conglomerates', 'agent_id = $1', [me.agentId], n);
      await topUp('conglomerate_entries', 'conglomerate_id = $1', [id], n);
      await sql(`UPDATE conglomerates SET state = 'OPERATING', operating_at = now() - ($2 - 1) * interval '1 day' WHERE id = $1`, [id, n]);
      await sql(
        `UPDATE conglomerates SET state_history = (SELECT jsonb_agg(jsonb_build_object('from', 'FORMING', 'to', 'OPERATING', 'triggered_by', 'external', 'by', 'founder', 'at', now())) FROM generate_series(1, $2)) WHERE id = $1`,
        [id, n],
      );
      return { key: me.key, args: { id }, parentArgs: { id, conglomerateId: id } };
    };
  });

/** Agents (and external agents) listing one capability of their own. */
const ammcAgents = () =>
  fixture(async () => {
    const me = await agent();
    const capability = uniqueSlug('ammc');
    await must('mutation($i: UpdateMeInput!) { updateMe(input: $i) { id } }', { i: { capabilities: [capability] } }, me.key);
    return async (n) => {
      await topUp('agents', 'capabilities @> ARRAY[$1]::text[]', [capability], n);
      return { args: { capability } };
    };
  });

const externalAgents = () =>
  fixture(async () => {
    const me = await agent();
    const word = uniqueSlug('extcap');
    await sql(
      `INSERT INTO external_agents (id, owner_id, instance_url, name, description, capabilities, secret, updated_at)
     VALUES (gen_random_uuid(), $1, 'https://instance.example.com/a', 'An instance', 'Elsewhere', ARRAY[$2], 'whsec_x', now())`,
      [me.agentId, word],
    );
    await sql(
      `INSERT INTO external_capabilities (id, owner_id, name, description, input_schema, endpoint, updated_at)
     VALUES (gen_random_uuid(), $1, $2, 'Registered elsewhere', '{}', 'https://instance.example.com/run', now())`,
      [me.agentId, word],
    );
    return async (n) => {
      await topUp('external_agents', 'owner_id = $1', [me.agentId], n);
      await topUp('external_capabilities', 'owner_id = $1', [me.agentId], n);
      return { key: me.key, args: { q: word, source: 'external' } };
    };
  });

/** Catalog capabilities sharing a word. */
const catalog = () =>
  fixture(async () => {
    const word = uniqueSlug('catword').replace(/[^a-z0-9]/g, '');
    await sql(`INSERT INTO capabilities (slug, name, group_name, description) VALUES ($1, $2, 'community', 'Declared by a test')`, [
      word,
      `Capability ${word}`,
    ]);
    return async (n) => {
      await topUp('capabilities', 'name = $1', [`Capability ${word}`], n);
      return { args: { query: word } };
    };
  });

const walletEntries = () =>
  fixture(async () => {
    const me = await agent();
    await must('mutation { sandboxFaucet(input: { amount: "1" }) { __typename } }', {}, me.key);
    const [wallet] = await sql<{ id: string }>('SELECT id FROM wallets WHERE agent_id = $1', [me.agentId]);
    return async (n) => {
      await topUp('wallet_entries', 'wallet_id = $1', [wallet.id], n);
      return { key: me.key, args: { agentId: me.agentId } };
    };
  });

const webmcpTools = () =>
  fixture(async () => {
    const category = uniqueSlug('cat').replace(/[^a-z0-9-]/g, '');
    const [site] = await sql<{ id: string }>(
      `INSERT INTO webmcp_sites (id, origin, manifest_url, name, indexed_at) VALUES (gen_random_uuid(), $1, $2, 'A site', now()) RETURNING id`,
      [`https://${category}.example.com`, `https://${category}.example.com/.well-known/webmcp.json`],
    );
    await sql(
      `INSERT INTO webmcp_tools (id, site_id, name, description, category, input_schema) VALUES (gen_random_uuid(), $1, 'lookup', 'Looks things up', $2, '{}')`,
      [site.id, category],
    );
    return async (n) => {
      await topUp('webmcp_tools', 'site_id = $1', [site.id], n);
      return { args: { category } };
    };
  });

const webmcpCategories = () =>
  fixture(async () => {
    const [site] = await sql<{ id: string }>(
      `INSERT INTO webmcp_sites (id, origin, manifest_url, indexed_at) VALUES (gen_random_uuid(), $1, $1, now()) RETURNING id`,
      [`https://${uniqueSlug('cats')}.example.com`],
    );
    await sql(
      `INSERT INTO webmcp_tools (id, site_id, name, description, category, input_schema) VALUES (gen_random_uuid(), $1, 'first', 'A tool', 'category-first', '{}')`,
      [site.id],
    );
    return async (n) => {
      await topUp('webmcp_tools', 'site_id = $1', [site.id], n, { category: `'category-' || substr(md5(random()::text), 1, 12)` });
      return {};
    };
  });

/** Usage counted for the caller on n endpoints (or n days). */
const usage = (spread: 'days' | 'endpoints'): Fixture =>
  fixture(async () => {
    const me = await agent();
    await sql(`INSERT INTO usage_counters (agent_id, endpoint, day, count) VALUES ($1, 'GET /agents/me', current_date, 3)`, [me.agentId]);
    return async (n) => {
      await topUp(
        'usage_counters',
        'agent_id = $1',
        [me.agentId],
        n,
        spread === 'days'
          ? { endpoint: 'src.endpoint', day: `current_date - (g + (SELECT count(*) FROM usage_counters WHERE agent_id = src.agent_id))::int` }
          : { day: 'src.day' },
      );
      return { key: me.key, cap: spread === 'days' ? 25 : undefined };
    };
  });

const reputationEvents = () =>
  ownRows('reputation_events', (id) => [
    `INSERT INTO reputation_events (id, agent_id, delta, score_after, reason) VALUES (gen_random_uuid(), $1, 1, 21, 'A good answer')`,
    [id],
  ]);

const auditEvents = () =>
  ownRows('audit_events', (id) => [`INSERT INTO audit_events (id, agent_id, action, actor_kind) VALUES (gen_random_uuid(), $1, 'key.rotated', 'agent')`, [id]]);

/** For the showcase's top tens: n services of a Star provider (the showcase lists no others), n executions. */
const showcase = () =>
  fixture(async () => {
    const services = servicesOfOne();
    const calls = executions();
    const { key, args } = await services(1);
    await sql(`UPDATE agents SET reputation = 90 WHERE id IN (SELECT agent_id FROM services WHERE $1 = ANY(capabilities))`, [args!.capability]);
    return async (n) => {
      await services(n);
      await calls(n);
      return { key, cap: 10 };
    };
  });

/** A fixture of another field, asked for with other arguments. */
const asking = (make: () => Fixture, extra: (s: Seeded) => Seeded) => (): Fixture => {
  const f = make();
  return async (n) => extra(await f(n));
};

/** n sub-agents under one agent (copies of one, under the same parent). */
const subAgents = () =>
  fixture(async () => {
    const me = await agent();
    await must(
      'mutation($p: ID!, $i: CreateSubAgentInput!) { createSubAgent(parentId: $p, input: $i) { agentId } }',
      { p: me.agentId, i: { name: uniqueName('sub'), description: 'A sub-agent', autonomyLevel: 'EXECUTE_ONLY', authorityScope: ['summarize'] } },
      me.key,
    );
    return async (n) => {
      await topUp('agents', 'parent_id = $1', [me.agentId], n);
      return { key: me.key };
    };
  });

/** n agents whose names start alike, for the administrator's list filtered by that start. */
const namedAgents = () =>
  fixture(async () => {
    // Long enough that topUp's fresh names keep the start and replace the tail.
    const start = uniqueName('adm');
    await registerAgent(server, { name: `${start}-${'x'.repeat(12)}` });
    return async (n) => {
      await topUp('agents', 'name LIKE $1', [`${start}%`], n);
      return { key: ADMIN_KEY, args: { name: start } };
    };
  });

/** Reputation changes of one agent on n different days. */
const reputationDays = () =>
  fixture(async () => {
    const me = await agent();
    await sql(
      `INSERT INTO reputation_events (id, agent_id, delta, score_after, reason, created_at) VALUES (gen_random_uuid(), $1, 1, 21, 'A good answer', now() - interval '1 day')`,
      [me.agentId],
    );
    return async (n) => {
      await topUp('reputation_events', 'agent_id = $1', [me.agentId], n, {
        created_at: `now() - (g + (SELECT count(*) FROM reputation_events WHERE agent_id = src.agent_id)) * interval '1 day'`,
      });
      return { parentArgs: { agentId: me.agentId }, args: { days: 365 } };
    };
  });

/** For each list field: a fresh fixture of its own (lists of one kind do not share rows). */
const FIXTURES: Record<string, () => Fixture> = {
  'Query.acpOfferings': pricedCatalog,
  'Query.capabilityPricing': pricedCatalog,
  'Query.adminDisputes': asking(disputes, () => ({ key: ADMIN_KEY, args: { status: 'under_review' } })),
  'Query.myDisputes': disputes,
  'Revenue.byCapability': () => transactions('capabilities'),
  'Revenue.byDay': () => transactions('days'),
  'Query.ammcAgents': ammcAgents,
  'ConglomerateStats.dailyReturns': conglomerates,
  'CapabilityCatalog.capabilities': asking(catalog, () => ({})),
  'Conglomerate.stateHistory': conglomerates,
  'Query.conglomerateActivity': conglomerates,
  'Query.conglomerates': asking(conglomerates, (s) => ({ key: s.key })),
  'Query.externalAgents': asking(externalAgents, (s) => ({ key: s.key })),
  'Query.searchGatewayCapabilities': externalAgents,
  'Query.installedSkills': installedSkills,
  'Query.memoryEntries': memoryEntries,
  'Query.memoryEntryVersions': memoryEntries,
  'Query.searchMemory': memoryEntries,
  'Query.memoryStores': () => memoryStore('private'),
  'Query.publicMemoryStores': asking(
    () => memoryStore('public'),
    () => ({ args: { storeType: 'kv' } }),
  ),
  'Analytics.costBreakdown': () => executionsSpread('capabilities'),
  'Analytics.topCapabilities': asking(
    () => executionsSpread('capabilities'),
    (s) => ({ ...s, cap: 10 }),
  ),
  'Analytics.trends': () => executionsSpread('days'),
  'Query.myAuditLog': auditEvents,
  'Query.myExecutions': executions,
  'Query.myKeys': subKeys,
  'Query.myReputation': reputationEvents,
  'Query.mySubAgents': subAgents,
  'Query.adminAgents': namedAgents,
  'AgentReputation.history': reputationDays,
  'Query.mySkills': asking(
    () => skills(false),
    (s) => ({ key: s.key }),
  ),
  'Query.mySparks': asking(sparks, (s) => ({ key: s.key, first: 50 })),
  'Query.myTransactions': () => transactions(),
  'Usage.byDay': () => usage('days'),
  'Usage.endpoints': () => usage('endpoints'),
  'Resolution.matches': () => providersOf('input'),
  'Query.services': servicesOfOne,
  'Query.searchCapabilities': catalog,
  'Showcase.recentExecutions': showcase,
  'Showcase.topServices': showcase,
  'Query.showcaseServices': showcaseListing,
  'Query.myServices': servicesOfOne,
  'ServiceAnalytics.byDay': () => serviceCalls('days'),
  'ServiceAnalytics.byCapability': () => serviceCalls('capabilities'),
  'Query.skillMarketplace': asking(
    () => skills(true),
    (s) => ({ key: s.key, args: { q: s.args!.q } }),
  ),
  'Query.skillVersions': asking(
    () => skills(true),
    (s) => ({ key: s.key, args: { id: s.args!.id } }),
  ),
  'Query.sparks': sparks,
  'Query.streamingSessions': streamingSessions,
  'Query.subscriptionRuns': subscriptions,
  'Query.subscriptions': asking(subscriptions, (s) => ({ key: s.key })),
  'SwarmSession.steps': swarms,
  'Query.swarmSessions': swarms,
  'Task.delegations': tasks,
  'Task.executions': tasks,
  'Query.tasks': tasks,
  'Ticket.comments': oneTicket,
  'Ticket.history': oneTicket,
  'Query.ticketEndpoints': ticketEndpoints,
  'Query.tickets': ticketsAboutMyService,
  'UtoNotificationPoll.events': utoNotifications,
  'GatewayPoll.events': gatewayEvents,
  'Query.utoNotificationSubscriptions': utoNotifications,
  'Query.utoSpecialists': utoSpecialists,
  'UtoTicket.stateHistory': utoTickets,
  'Query.utoTickets': utoTickets,
  'Query.walletEntries': walletEntries,
  'Query.mandates': mandates,
  'Query.webhookDeliveries': deliveries,
  'Query.webhooks': webhooks,
  'WebmcpStats.byCategory': webmcpCategories,
  'Query.webmcpTools': webmcpTools,
};

/** A list reached through more than one field of Query, by root: `Resolution.matches` through providers too. */
const ROOT_FIXTURES: Record<string, () => Fixture> = {
  'Query.providers': () => providersOf('capability'),
};

// ---------------------------------------------------------------------------------------------------
// Counting

interface Measured {
  statements: string[];
  items: unknown[];
}

/**
 * The statements of one request in its steady state: asked four times, the first not counted, the cheapest of
 * the other three kept. What a first request does once (a cache filled, the caller looked up) is not the
 * list's doing, and neither is a kept answer emptied between two runs by a change notification that arrived
 * late (on PostgreSQL, the fixture's own copied rows are reported a moment after their commit). A statement
 * per item runs in every run, so the cheapest still shows it.
 */
async function measure(target: Target, seeded: Seeded, variables?: Record<string, unknown>, query?: string): Promise<Measured> {
  const doc = query ? { query, variables: variables ?? {} } : documentFor(target, seeded);
  let counted: Counted<any> | undefined;
  for (let run = 0; run < 4; run++) {
    const next = await watch.gql<any>(doc.query, doc.variables, seeded.key);
    const { res } = next;
    if (res.body.errors?.length || !res.body.data) throw new Error(`${target.coordinate}: ${res.status} ${res.text.slice(0, 800)}\n${doc.query}`);
    if (run === 1 || (run > 1 && next.statements.length < counted!.statements.length)) counted = next;
  }
  const data = target.nested && !query ? counted!.res.body.data.parent.list : counted!.res.body.data.list;
  const items = Array.isArray(data) ? data : data.edges.map((e: { node: unknown }) => e.node);
  return { statements: counted!.statements, items };
}

/** A statement's shape: its parameters unnumbered, so `IN ($1,$2)` and `IN ($1,…,$50)` read alike. */
const shape = (statement: string) =>
  statement
    .replace(/\s+/g, ' ')
    .replace(/\$\d+/g, '$')
    .replace(/\(\$(, ?\$)*\)/g, '($…)');

/** The statement shapes run more often at 50 than at 5, with how many more times. */
function growth(small: string[], large: string[]): string[] {
  const counts = new Map<string, number>();
  for (const s of large) counts.set(shape(s), (counts.get(shape(s)) ?? 0) + 1);
  for (const s of small) counts.set(shape(s), (counts.get(shape(s)) ?? 0) - 1);
  return [...counts].filter(([, d]) => d > 0).map(([s, d]) => `+${d}× ${s.slice(0, 300)}`);
}

/** Fails when the larger list ran more statements, naming the ones that grew. */
function expectNoGrowth(what: string, small: Measured, large: Measured) {
  const extra = large.statements.length - small.statements.length;
  if (extra > 0) {
    throw new Error(
      `${what}: ${small.statements.length} statements for ${small.items.length} items, ${large.statements.length} for ${large.items.length}:\n${growth(small.statements, large.statements).join('\n')}`,
    );
  }
}

describe('no N+1 anywhere in the graph', () => {
  const targets = walk();

  beforeAll(async () => {
    // No kept answers: a list answered from the read cache runs no statement, so whether a run hit it (a
    // kept answer lives 2 s, less than a run takes on a loaded machine) would decide what was counted.
    server = await startServer({ env: { RATE_LIMIT_DISABLED: '1', ADMIN_KEY, READ_CACHE_MS: '0' } });
    watch = watchStatements(server);
  });
  afterAll(() => server?.close());

  it("counts a request's own statements, and only its own", async () => {
    const me = await registerAgent(server);
    const counted = await watch.gql('{ myKeys { edges { node { id } } } services(first: 3) { edges { node { id } } } }', undefined, me.key);
    expect(counted.res.body.errors).toBeUndefined();
    expect(counted.statements.length).toBeGreaterThanOrEqual(2);
    // A request that reads nothing from the database (the caller is remembered, tiers are constants).
    expect((await watch.gql('{ tiers { name } }', undefined, me.key)).statements).toEqual([]);
  });

  it('has a fixture for every list field, or a reason why it cannot grow', () => {
    const uncovered = targets
      .filter((t) => !FIXTURES[t.coordinate] && !ROOT_FIXTURES[`Query.${t.root.name}`] && !FIXED_LISTS[t.coordinate])
      .map((t) => t.coordinate);
    expect(uncovered).toEqual([]);
  });

  const checked = targets.filter((t) => !FIXED_LISTS[t.coordinate]);
  it.each(checked.map((t) => [t.nested ? `${t.coordinate} (through Query.${t.root.name})` : t.coordinate, t] as const))(
    '%s runs no more statements for 50 items than for 5',
    async (name, target) => {
      const seed = (ROOT_FIXTURES[`Query.${target.root.name}`] ?? FIXTURES[target.coordinate])();
      const s5 = await seed(5);
      const at5 = await measure(target, s5);
      const s50 = await seed(50);
      const at50 = await measure(target, s50);
      // The fixture really made the list grow (else the comparison proves nothing).
      expect(at5.items.length).toBeGreaterThanOrEqual(Math.min(5, s5.cap ?? 5));
      expect(at50.items.length).toBeGreaterThanOrEqual(Math.min(50, s50.cap ?? 50));
      if (!s50.cap) expect(at50.items.length).toBeGreaterThan(at5.items.length);
      expectNoGrowth(name, at5, at50);

      // A list of Node items, read again by id through Query.nodes.
      const type = itemType((target.nested ?? target.root).type);
      if (isObjectType(type) && type.getInterfaces().some((i) => i.name === 'Node')) {
        const ids = (items: unknown[]) => items.map((i) => (i as { id: string }).id);
        const query = `query Nodes($ids: [ID!]!) { list: nodes(ids: $ids) { ... on ${type.name} { ${selection(type, 1)} } } }`;
        const n5 = await measure(target, s5, { ids: ids(at5.items) }, query);
        const n50 = await measure(target, s50, { ids: ids(at50.items) }, query);
        expect(n50.items.length).toBe(at50.items.length);
        expectNoGrowth(`nodes(ids:) of ${type.name}`, n5, n50);
      }
    },
  );
});
