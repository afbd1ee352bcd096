// A2A tasks of an agent, as the A2A endpoint stores them: each is the task's JSON (the SDK's form) with
// its owner, state and context, so any instance answers tasks/get and tasks/list. Another agent's task is
// not found.
import type { Prisma } from '../../db/generated/prisma/client';
import type { Services } from '../context';

export interface StoredTask {
  id: string;
  contextId: string;
  state: string;
  body: unknown;
}

/** Writes the task (insert or replace); a task id another agent holds is left alone (false). */
export async function saveA2aTask(services: Pick<Services, 'sql'>, agentId: string, task: StoredTask): Promise<boolean> {
  const rows = await services.sql.query<{ id: string }>(
    `INSERT INTO a2a_tasks (id, agent_id, context_id, state, body, updated_at) VALUES ($1, $2, $3, $4, $5::jsonb, now())
     ON CONFLICT (id) DO UPDATE SET context_id = EXCLUDED.context_id, state = EXCLUDED.state, body = EXCLUDED.body, updated_at = now()
     WHERE a2a_tasks.agent_id = EXCLUDED.agent_id
     RETURNING id`,
    [task.id, agentId, task.contextId, task.state, JSON.stringify(task.body)],
    'a2a_task_save',
  );
  return rows.length === 1;
}

export async function loadA2aTask(services: Pick<Services, 'sql'>, agentId: string, id: string): Promise<unknown | undefined> {
  const [row] = await services.sql.query<{ body: unknown }>('SELECT body FROM a2a_tasks WHERE id = $1 AND agent_id = $2', [id, agentId], 'a2a_task_load');
  return row?.body;
}

/** The agent's tasks, most recently changed first, optionally of one context or state. */
export async function listA2aTasks(
  services: Pick<Services, 'db'>,
  agentId: string,
  filter: { contextId?: string; state?: string },
  page: { offset: number; limit: number },
): Promise<{ bodies: unknown[]; total: number }> {
  const where: Prisma.A2aTaskWhereInput = {
    agentId,
    ...(filter.contextId ? { contextId: filter.contextId } : {}),
    ...(filter.state ? { state: filter.state } : {}),
  };
  const [rows, total] = await Promise.all([
    services.db.a2aTask.findMany({ where, orderBy: [{ updatedAt: 'desc' }, { id: 'asc' }], skip: page.offset, take: page.limit, select: { body: true } }),
    services.db.a2aTask.count({ where }),
  ]);
  return { bodies: rows.map((r) => r.body), total };
}
