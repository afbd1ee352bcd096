// What to do next, said to an agent that reached the marketplace without a credential: how to register
// (and what it gets back), and how to execute a capability once it has a key. MCP's `registerAgent` and
// `executeCapability` answer these (spec §4.14); every URL is absolute under PUBLIC_BASE_URL.
import { Checks } from '../../platform/validate';
import { CAPABILITY_SLUG } from '../capabilities/catalog';
import type { Ctx } from '../context';

export interface InstructionStep {
  title: string;
  method: string;
  url: string;
  /** Headers to send, with placeholders in angle brackets. */
  headers: Record<string, string>;
  /** The JSON body to send (placeholders in angle brackets), or null for none. */
  body: Record<string, unknown> | null;
  /** The same operation on GraphQL (`POST {graphqlUrl}` with `query` and `variables`). */
  graphql: { query: string; variables: Record<string, unknown> } | null;
}

export interface Instructions {
  /** One paragraph an agent (or a person) can act on. */
  message: string;
  /** Whether the operation needs a bearer key the caller did not send. */
  authenticationRequired: boolean;
  steps: InstructionStep[];
  graphqlUrl: string;
  documentationUrl: string;
}

const BEARER = { Authorization: 'Bearer <master_key>', 'Content-Type': 'application/json' };

function urls(ctx: Ctx) {
  const base = ctx.services.config.publicBaseUrl;
  return {
    api: `${base}/api/v1`,
    graphqlUrl: `${base}/graphql`,
    documentationUrl: `${base}/api/v1/openapi.json`,
    mcp: `${base}/mcp`,
    llms: `${base}/llms.txt`,
  };
}

/** The step that registers an agent. */
function registerStep(api: string, name: string, description: string): InstructionStep {
  return {
    title: 'Register an agent (no key needed); the answer carries master_key once: keep it secret',
    method: 'POST',
    url: `${api}/agents/register`,
    headers: { 'Content-Type': 'application/json' },
    body: { name, description, ownerEmail: '<owner email>' },
    graphql: {
      query: 'mutation RegisterAgent($input: RegisterAgentInput!) { registerAgent(input: $input) { masterKey agentKey agent { id name tier reputation } } }',
      variables: { input: { name, description, ownerEmail: '<owner email>' } },
    },
  };
}

/**
 * How to register: the registration call with what was given filled in, and, when capabilities were
 * named (comma-separated), how to publish a service offering them.
 */
export function registrationInstructions(ctx: Ctx, input: { name: string; description?: string | null; capabilities?: string | null }): Instructions {
  const checks = new Checks();
  const name = checks.text('name', input.name, { min: 3, max: 50, required: true });
  const description = checks.text('description', input.description, { max: 2000 }) || '<what the agent does>';
  const capabilities = (input.capabilities ?? '')
    .split(',')
    .map((c) => c.trim())
    .filter(Boolean);
  capabilities.forEach((c) => {
    if (!CAPABILITY_SLUG.test(c) || c.length > 64) checks.fail('capabilities', `"${c}" is not a capability identifier such as "summarize"`);
  });
  if (capabilities.length > 50) checks.fail('capabilities', 'must name at most 50 capabilities');
  checks.done();
  const { api, graphqlUrl, documentationUrl, mcp } = urls(ctx);
  const steps = [registerStep(api, name!, description)];
  if (capabilities.length) {
    steps.push({
      title: 'Offer the capabilities: publish a service at an https endpoint the marketplace will call',
      method: 'POST',
      url: `${api}/services/register`,
      headers: BEARER,
      body: { name: `${name} service`, endpoint: '<https endpoint>', capabilities, description, pricing_model: 'free' },
      graphql: {
        query: 'mutation RegisterService($input: RegisterServiceInput!) { registerService(input: $input) { serviceId serviceKey signingSecret status } }',
        variables: { input: { name: `${name} service`, endpoint: '<https endpoint>', capabilities, description, pricingModel: 'free' } },
      },
    });
  }
  return {
    message:
      `Registration is a call you make yourself, so that the master key it returns is shown to you once and to nobody else. ` +
      `POST ${api}/agents/register with name, description and ownerEmail. Then send "Authorization: Bearer <master_key>" on every request, ` +
      `including the MCP connection at ${mcp}, and every tool works for your agent.`,
    authenticationRequired: false,
    steps,
    graphqlUrl,
    documentationUrl,
  };
}

/** How to execute a capability: register if needed, then the execute call with what was given filled in. */
export function executionInstructions(ctx: Ctx, input: { capability: string; input?: unknown }): Instructions {
  const checks = new Checks();
  const capability = checks.text('capability', input.capability, { max: 64, required: true });
  if (capability && !CAPABILITY_SLUG.test(capability)) checks.fail('capability', 'must be a capability identifier such as "summarize"');
  const given = input.input ?? {};
  if (typeof given !== 'object' || given === null || Array.isArray(given)) checks.fail('input', 'must be an object');
  checks.done();
  const { api, graphqlUrl, documentationUrl, mcp } = urls(ctx);
  const body = { capability: capability!, input: given as Record<string, unknown> };
  return {
    message:
      `Executing a capability needs an agent's key: the call is made, recorded and charged for that agent. ` +
      `Connect to ${mcp} with "Authorization: Bearer <master_key>" and call executeCapability again, ` +
      `or POST ${api}/execute with the same header. No key yet? Register first (step 1).`,
    authenticationRequired: true,
    steps: [
      registerStep(api, '<agent name>', '<what the agent does>'),
      {
        title: `Execute ${capability}: the best-ranked provider is called, with fallback to the next`,
        method: 'POST',
        url: `${api}/execute`,
        headers: BEARER,
        body,
        graphql: {
          query:
            'mutation Execute($input: ExecuteInput!) { execute(input: $input) { executionId status result error provider { serviceKey name } transaction { costCents latencyMs } } }',
          variables: { input: body },
        },
      },
    ],
    graphqlUrl,
    documentationUrl,
  };
}
