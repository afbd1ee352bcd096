// The credential check a surface can make before reading anything else of a request: the REST layer
// answers 401/403 before 400, as a client expects, using the same rules as the schema's auth scopes.
import { requireAdmin, requireAgent } from '../src/domain/agents/principal';
import type { Ctx } from '../src/domain/context';

export type RequiredAuth = 'agent' | 'admin' | 'none';

export async function authorize(ctx: Ctx, auth: RequiredAuth): Promise<void> {
  if (auth === 'agent') await requireAgent(ctx);
  else if (auth === 'admin') await requireAdmin(ctx);
}
