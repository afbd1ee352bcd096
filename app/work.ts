// Background work: the scheduler's rounds, the outbox's dispatcher, the readers of the event streams and the
// areas' workers. Started once the server listens, stopped at shutdown before the services close.
import type { Database } from '../src/db/database';
import { maintain } from '../src/db/maintenance';
import { applyDeadlines } from '../src/domain/ammc/conglomerates';
import type { Services } from '../src/domain/context';
import { refreshOfferScores } from '../src/domain/discovery/offer-scores';
import { purgeOldGatewayEvents } from '../src/domain/ext/gateway-events';
import { recordUptimeSample } from '../src/domain/health/health';
import { purgeExpiredEntries } from '../src/domain/memory/entries';
import { releaseLapsedHolds } from '../src/domain/payments/ledger';
import { purgeOldRadioEvents } from '../src/domain/radio/radio';
import { inactiveSweep, INACTIVE_POLL_MS, RESUME_BATCH, RESUME_POLL_MS, resumeDueServices } from '../src/domain/services/lifecycle';
import { purgeOldEvents } from '../src/domain/streaming/sessions';
import { expireOverdueTasks } from '../src/domain/tasks/tasks';
import { purgeOldUtoEvents } from '../src/domain/uto/events';
import { expireOverdueTickets } from '../src/domain/uto/tickets';

const USAGE_FLUSH_MS = 5_000;
const OFFER_REFRESH_MS = 60_000;
const IDEMPOTENCY_PURGE_MS = 3_600_000;
/** How often the holds of calls that were never recorded (a stopped process) are given back. */
const HOLD_LAPSE_MS = 30_000;
const OUTBOX_RECOVER_MS = 2_000;
const STREAM_PURGE_MS = 60_000;
/** How often tasks past their deadline are looked for and expired. */
const TASK_EXPIRY_MS = 5_000;
/** How often UTO tickets and conglomerates past their deadlines are moved on. */
const DEADLINES_MS = 5_000;
const UTO_EVENTS_PURGE_MS = 3_600_000;

export interface BackgroundWork {
  /** Starts every job and worker (once: a second call does nothing). */
  start(): void;
  /** Stops them but the wallet leases, which are given back once every call is answered (closeServices). */
  stop(): Promise<void>;
}

export function backgroundWork(db: Database, services: Services): BackgroundWork {
  const { config, log, scheduler, dispatcher, outbox } = services;
  let working = false;
  // A job that works in batches runs batch after batch while each comes back full.
  const drain = (batch: () => Promise<number>, size: number) => async () => {
    while ((await batch()) === size);
  };
  return {
    start() {
      if (working) return;
      working = true;
      scheduler.every('uptime-sample', config.uptimeSampleMs, () => recordUptimeSample(services));
      scheduler.every('usage-flush', USAGE_FLUSH_MS, () => services.usage.flush(services), { runNow: false });
      scheduler.every('idempotency-purge', IDEMPOTENCY_PURGE_MS, () => services.idempotency.purgeExpired(services.clock.now()), { runNow: false });
      scheduler.every(
        'wallet-holds',
        HOLD_LAPSE_MS,
        drain(() => releaseLapsedHolds(services), 500),
        { runNow: false },
      );
      scheduler.every('offer-scores', OFFER_REFRESH_MS, async () => void (await refreshOfferScores(services)), { runNow: false });
      scheduler.every(
        'memory-purge',
        config.memoryPurgeMs,
        drain(() => purgeExpiredEntries(services), 1000),
        { runNow: false },
      );
      if (config.dbMaintenanceMs > 0) {
        scheduler.every('database-maintenance', config.dbMaintenanceMs, async () => void (await maintain(db, log, db.kind === 'pglite')), { runNow: false });
      }
      scheduler.every(
        'services-resume',
        RESUME_POLL_MS,
        drain(() => resumeDueServices(services), RESUME_BATCH),
        { runNow: false },
      );
      scheduler.every('services-inactive', INACTIVE_POLL_MS, inactiveSweep(services), { runNow: false });
      scheduler.every(
        'tasks-expiry',
        TASK_EXPIRY_MS,
        drain(() => expireOverdueTasks(services), 500),
        { runNow: false },
      );
      scheduler.every(
        'uto-deadlines',
        DEADLINES_MS,
        drain(() => expireOverdueTickets(services), 200),
        { runNow: false },
      );
      scheduler.every(
        'ammc-deadlines',
        DEADLINES_MS,
        drain(() => applyDeadlines(services), 200),
        { runNow: false },
      );
      scheduler.every(
        'uto-events-purge',
        UTO_EVENTS_PURGE_MS,
        drain(() => purgeOldUtoEvents(services), 5000),
        { runNow: false },
      );
      scheduler.every(
        'radio-events-purge',
        UTO_EVENTS_PURGE_MS,
        drain(() => purgeOldRadioEvents(services), 5000),
        { runNow: false },
      );
      scheduler.every(
        'gateway-events-purge',
        UTO_EVENTS_PURGE_MS,
        drain(() => purgeOldGatewayEvents(services), 5000),
        { runNow: false },
      );
      scheduler.every('stream-events-purge', STREAM_PURGE_MS, async () => void (await purgeOldEvents(services)), { runNow: false });
      scheduler.every('outbox-recover', OUTBOX_RECOVER_MS, async () => void (await outbox.recover()));
      dispatcher.start();
      services.sessionStreams.start();
      services.runStreams.start();
      services.swarmStreams.start();
      services.utoStreams.start();
      services.radioStreams.start();
      services.subscriptionScheduler!.start();
      services.swarmRunner!.start();
      services.utoMatcher!.start();
      services.webmcpIndexer!.start();
      services.providerStats.start();
      services.prober?.start({ runNow: false });
      services.qualityJob?.start({ runNow: false });
      services.disputes.start();
      services.escrow.start();
      services.payments.leases.start();
    },
    async stop() {
      await services.sessionStreams.stop();
      await services.runStreams.stop();
      await services.swarmStreams.stop();
      await services.utoStreams.stop();
      await services.radioStreams.stop();
      // Background work takes nothing more (what it claimed is finished or left to its lease).
      await scheduler.stop();
      await services.subscriptionScheduler!.stop();
      await services.swarmRunner!.stop();
      await services.utoMatcher!.stop();
      await services.webmcpIndexer!.stop();
      await dispatcher.stop();
      await services.providerStats.stop();
      await services.prober?.stop();
      await services.qualityJob?.stop();
      await services.disputes.stop();
      await services.escrow.stop();
    },
  };
}
