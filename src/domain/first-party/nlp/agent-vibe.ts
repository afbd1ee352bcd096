// agent-vibe: the impression an agent gives.
import { NotFound, ValidationFailed } from '../../../platform/errors';
import type { Ctx } from '../../context';
import { tierOf } from '../../reputation/reputation';
import { askModel } from '../nlp-model';
import { list, nullable, obj, str } from '../schema';
import type { FirstPartyCapability } from '../types';
import { REWRITE_MAX, needsModel, MODEL_METHOD, MODEL, fromModel } from './shared';

/** What an agent shows of itself to anyone: its name, standing, and its active services' descriptions. */
async function publicPresence(ctx: Ctx, meId: string, agentId: string) {
  const agent = await ctx.db.agent.findUnique({
    where: { id: agentId },
    select: { id: true, name: true, description: true, capabilities: true, reputation: true, createdAt: true },
  });
  if (!agent) throw new NotFound('agent', agentId);
  const services = await ctx.db.service.findMany({
    where: { agentId, status: 'active' },
    select: { name: true, description: true, capabilities: true },
    orderBy: { createdAt: 'desc' },
    take: 20,
  });
  // An agent's own description and capabilities are its own to read; of another, only what it publishes.
  const own = agentId === meId;
  return {
    agent,
    material: {
      name: agent.name,
      tier: tierOf(agent.reputation),
      reputation: agent.reputation,
      registered_at: agent.createdAt.toISOString(),
      ...(own ? { description: agent.description, capabilities: agent.capabilities } : {}),
      services: services.map((s) => ({ name: s.name, description: s.description, capabilities: s.capabilities })),
    },
    described: own || services.length > 0,
  };
}

export const agentVibe: FirstPartyCapability = {
  slug: 'agent-vibe',
  kind: 'generic',
  ...needsModel,
  summary:
    'The impression an agent gives — its vibe, tone and traits, each with its evidence — read from its public presence (name, standing, services) or from a text it wrote (model)',
  inputSchema: {
    type: 'object',
    description: 'Either agent_id or text',
    properties: {
      agent_id: str('An agent (UUID): its name, tier and active services are read (and its own description, if it is the caller)', { format: 'uuid' }),
      text: str('Something an agent wrote (a description, messages, a post; at most 20,000 characters)', { minLength: 1, maxLength: REWRITE_MAX }),
    },
    additionalProperties: false,
    oneOf: [{ required: ['agent_id'] }, { required: ['text'] }],
  },
  outputSchema: obj(
    {
      method: MODEL_METHOD,
      model: MODEL,
      subject: obj({ kind: str('What was read', { enum: ['agent', 'text'] }), agent_id: nullable(str('The agent')), name: nullable(str('Its name')) }, [
        'kind',
        'agent_id',
        'name',
      ]),
      vibe: str('The impression in a few words'),
      tone: str('How it sounds'),
      traits: list(obj({ trait: str('A trait'), evidence: str('What in the material shows it') }, ['trait', 'evidence']), 'Its traits, each with its evidence'),
      summary: str('The read in two or three sentences'),
    },
    ['method', 'model', 'subject', 'vibe', 'tone', 'traits', 'summary'],
  ),
  run: async (ctx, me, input, signal) => {
    let subject: { kind: 'agent' | 'text'; agent_id: string | null; name: string | null };
    let material: unknown;
    if (typeof input.agent_id === 'string') {
      const presence = await publicPresence(ctx, me.id, input.agent_id);
      if (!presence.described)
        throw new ValidationFailed([{ path: 'agent_id', message: 'is an agent with no active service: nothing public describes it beyond its name' }]);
      subject = { kind: 'agent', agent_id: presence.agent.id, name: presence.agent.name };
      material = presence.material;
    } else {
      subject = { kind: 'text', agent_id: null, name: null };
      material = { text: input.text };
    }
    const { answer, model, usage } = await askModel<{ vibe: string; tone: string; traits: { trait: string; evidence: string }[]; summary: string }>(
      ctx,
      {
        name: 'agent_vibe',
        instructions:
          'Read the impression this software agent gives from the material alone (its public presence, or a text it wrote): its vibe in a few words, its tone, and its traits, each with the evidence in the material that shows it (quote or point at it). Read only what the material shows; a thin material makes a short, tentative read.',
        input: { material },
        schema: obj(
          {
            vibe: str('A few words'),
            tone: str('How it sounds'),
            traits: list(obj({ trait: str('A trait'), evidence: str('Its evidence in the material') }, ['trait', 'evidence']), 'Its traits', {
              minItems: 1,
              maxItems: 8,
            }),
            summary: str('Two or three sentences'),
          },
          ['vibe', 'tone', 'traits', 'summary'],
        ),
        maxTokens: 1_024,
        temperature: 0.4,
      },
      signal,
    );
    return fromModel(model, usage, { subject, ...answer });
  },
};
