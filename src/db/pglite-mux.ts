// Many PostgreSQL wire-protocol connections onto PGlite's one session, in the database worker (pglite-worker.ts),
// so `pg` and Prisma talk to the embedded database as to PostgreSQL. Connections take turns by whole exchanges (up
// to Sync or a simple Query), a connection in a transaction keeps the session until it ends, the worker's own work
// queues the same way, notifications go to the worker, and each connection's statement names are aliased so two may
// prepare the same one (docs/operations.md, The embedded database's thread).
import net from 'node:net';
import type { PGlite } from '@electric-sql/pglite';

const SSL_REQUEST = 80877103;
const GSSENC_REQUEST = 80877104;
const CANCEL_REQUEST = 80877102;
const PROTOCOL_3 = 196608;
/** Messages that end an exchange: Sync, Query, Flush, CopyDone, CopyFail. */
const BATCH_ENDS = new Set([0x53, 0x51, 0x48, 0x63, 0x66]);
const TERMINATE = 0x58;
const NOTIFICATION = 0x41;
const READY_FOR_QUERY = 0x5a;
const SYNC = Buffer.from([0x53, 0, 0, 0, 4]);
/** Frontend messages that name a prepared statement: Parse, Bind, Describe and Close. */
const PARSE = 0x50;
const BIND = 0x42;
const DESCRIBE = 0x44;
const CLOSE = 0x43;

function simpleQuery(sql: string): Buffer {
  const body = Buffer.from(`${sql}\0`, 'utf8');
  const head = Buffer.alloc(5);
  head[0] = 0x51;
  head.writeInt32BE(body.length + 4, 1);
  return Buffer.concat([head, body]);
}

/** Who a turn belongs to: a client connection, or the worker itself. */
type Owner = object;

interface Turn {
  owner: Owner;
  /** Runs with the session to itself; answers whether its owner keeps the session afterwards. */
  run(): Promise<boolean>;
}

interface Connection {
  id: number;
  socket: net.Socket;
  buffered: Buffer;
  started: boolean;
  pending: Buffer[];
  closed: boolean;
  /** The client's statement names and their aliases in the session. */
  statements: Map<string, string>;
  /** Aliases handed out so far (each is used once, even after its statement is closed). */
  aliases: number;
}

/** A C string of `message` starting at `at`: its text and the offset after its terminator. */
function cString(message: Buffer, at: number): { text: string; end: number } {
  const nul = message.indexOf(0, at);
  if (nul < 0) throw new Error('unterminated string in a message');
  return { text: message.toString('utf8', at, nul), end: nul + 1 };
}

/** `message` with the C string at [from, to) replaced by `name`, its length field updated. */
function withName(message: Buffer, from: number, to: number, name: string): Buffer {
  const replaced = Buffer.concat([message.subarray(0, from), Buffer.from(`${name}\0`, 'utf8'), message.subarray(to)]);
  replaced.writeInt32BE(replaced.length - 1, 1);
  return replaced;
}

export interface MuxOptions {
  onNotify(channel: string, payload: string): void;
  log(message: string): void;
}

export class PgliteMux {
  private queue: Turn[] = [];
  /** Holds the session between its batches (an open transaction); null when anyone may go next. */
  private owner: Owner | null = null;
  private running = false;
  private server: net.Server | undefined;
  private connections = new Set<Connection>();
  private connectionIds = 0;
  /** Closing: the session ends with the database, and its prepared statements with it. */
  private closing = false;
  /** The worker's own turns. */
  readonly self: Owner = {};

  constructor(
    private readonly db: PGlite,
    private readonly opts: MuxOptions,
  ) {}

  /** Runs `fn` in the worker's own turn (never inside a client's transaction). */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.enqueue({
        owner: this.self,
        run: async () => {
          try {
            resolve(await fn());
          } catch (err) {
            reject(err);
          }
          return false;
        },
      });
    });
  }

  listen(socketPath: string): Promise<void> {
    this.server = net.createServer((socket) => this.attach(socket));
    return new Promise((resolve, reject) => {
      this.server!.once('error', reject);
      this.server!.listen(socketPath, () => resolve());
    });
  }

  /** Stops accepting and drops every connection (their open transactions roll back in their turn). */
  async close(): Promise<void> {
    this.closing = true;
    // Detached now rather than on their sockets' 'close' events, which come after the turns the worker
    // queues next (its last checkpoint, then closing the database): what they leave is ended first.
    for (const c of [...this.connections]) {
      c.socket.destroy();
      this.detach(c);
    }
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  private enqueue(turn: Turn): void {
    this.queue.push(turn);
    this.pump();
  }

  private pump(): void {
    if (this.running || this.queue.length === 0) return;
    const at = this.owner ? this.queue.findIndex((t) => t.owner === this.owner) : 0;
    if (at < 0) return; // the session's holder has not sent its next batch yet
    const [turn] = this.queue.splice(at, 1);
    this.running = true;
    turn
      .run()
      .then(
        (keep) => (this.owner = keep ? turn.owner : null),
        (err: Error) => {
          this.opts.log(`a turn failed: ${err.message}`);
          this.owner = this.db.isInTransaction() ? turn.owner : null;
        },
      )
      .finally(() => {
        this.running = false;
        this.pump();
      });
  }

  /** Runs protocol bytes; answers the output without its notifications, and the last ReadyForQuery status. */
  private async exchange(bytes: Buffer): Promise<{ output: Buffer; status: string | null }> {
    const chunks: Buffer[] = [];
    await this.db.execProtocolRawStream(bytes, { onRawData: (data) => chunks.push(Buffer.from(data)) });
    return this.takeNotifications(chunks.length === 1 ? chunks[0] : Buffer.concat(chunks));
  }

  private takeNotifications(out: Buffer): { output: Buffer; status: string | null } {
    let at = 0;
    let status: string | null = null;
    let kept: Buffer[] | undefined;
    let from = 0;
    while (at + 5 <= out.length) {
      const type = out[at];
      const end = at + 1 + out.readInt32BE(at + 1);
      if (type === NOTIFICATION) {
        // Int32 sender pid, then channel and payload as C strings.
        const channelEnd = out.indexOf(0, at + 9);
        const channel = out.toString('utf8', at + 9, channelEnd);
        const payload = out.toString('utf8', channelEnd + 1, out.indexOf(0, channelEnd + 1));
        queueMicrotask(() => this.opts.onNotify(channel, payload));
        (kept ??= []).push(out.subarray(from, at));
        from = end;
      }
      status = type === READY_FOR_QUERY ? String.fromCharCode(out[at + 5]) : null;
      at = end;
    }
    return { output: kept ? Buffer.concat([...kept, out.subarray(from)]) : out, status };
  }

  private attach(socket: net.Socket): void {
    socket.setNoDelay(true);
    const c: Connection = {
      id: ++this.connectionIds,
      socket,
      buffered: Buffer.alloc(0),
      started: false,
      pending: [],
      closed: false,
      statements: new Map(),
      aliases: 0,
    };
    this.connections.add(c);
    socket.on('data', (chunk) => {
      c.buffered = c.buffered.length ? Buffer.concat([c.buffered, chunk]) : chunk;
      try {
        this.frame(c);
      } catch (err) {
        this.opts.log(`protocol error: ${(err as Error).message}`);
        socket.destroy();
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => this.detach(c));
  }

  /** Cuts the connection's bytes into messages and queues each complete exchange. */
  private frame(c: Connection): void {
    for (;;) {
      const buf = c.buffered;
      if (!c.started) {
        // Startup-phase messages have no type byte: length, then a code.
        if (buf.length < 8 || buf.length < buf.readInt32BE(0)) return;
        const length = buf.readInt32BE(0);
        const code = buf.readInt32BE(4);
        c.buffered = buf.subarray(length);
        if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
          c.socket.write('N');
        } else if (code === CANCEL_REQUEST) {
          // PGlite cannot cancel a statement; the request's own connection just ends.
          c.socket.end();
          return;
        } else if (code === PROTOCOL_3) {
          c.started = true;
          this.runBatch(c, Buffer.from(buf.subarray(0, length)));
        } else {
          throw new Error(`unsupported startup code ${code}`);
        }
        continue;
      }
      if (buf.length < 5) return;
      const end = 1 + buf.readInt32BE(1);
      if (buf.length < end) return;
      const type = buf[0];
      const message = buf.subarray(0, end);
      c.buffered = buf.subarray(end);
      if (type === TERMINATE) {
        c.socket.end();
        return;
      }
      c.pending.push(type === PARSE || type === BIND || type === DESCRIBE || type === CLOSE ? this.aliased(c, type, message) : message);
      if (BATCH_ENDS.has(type)) {
        const batch = Buffer.concat(c.pending);
        c.pending = [];
        this.runBatch(c, batch);
      }
    }
  }

  /**
   * The message with its prepared statement's name replaced by the connection's alias for it (a new one
   * for a Parse); the unnamed statement, portals and names never prepared pass as they are.
   */
  private aliased(c: Connection, type: number, message: Buffer): Buffer {
    // Bind names the portal first, then the statement; Describe and Close a kind byte, then the name.
    let at = 5;
    if (type === BIND) at = cString(message, at).end;
    else if (type !== PARSE) {
      if (message[at] !== 0x53) return message; // 'P': a portal
      at++;
    }
    const { text: name, end } = cString(message, at);
    if (!name) return message;
    let alias = c.statements.get(name);
    if (type === PARSE && !alias) c.statements.set(name, (alias = `mux${c.id}_${c.aliases++}`));
    if (!alias) return message;
    // A Close is answered CloseComplete whether or not the name existed: the alias goes with it.
    if (type === CLOSE) c.statements.delete(name);
    return withName(message, at, end, alias);
  }

  private runBatch(c: Connection, batch: Buffer): void {
    this.enqueue({
      owner: c,
      run: async () => {
        if (c.closed) return false;
        try {
          const { output, status } = await this.exchange(batch);
          if (output.length && !c.socket.destroyed) c.socket.write(output);
          return status !== 'I' || this.db.isInTransaction();
        } catch (err) {
          // No answer will come: the client learns it from its connection ending (detach cleans up).
          c.socket.destroy();
          throw err;
        }
      },
    });
  }

  private detach(c: Connection): void {
    if (c.closed) return;
    c.closed = true;
    this.connections.delete(c);
    this.queue = this.queue.filter((t) => t.owner !== c);
    // One at a time: a name whose Parse failed was never prepared, and its error must not skip the rest.
    const aliases = [...c.statements.values()];
    const forget = async () => {
      if (this.closing) return;
      for (const alias of aliases) await this.exchange(simpleQuery(`DEALLOCATE ${alias}`));
    };
    if (this.owner !== c) {
      if (aliases.length) this.queue.push({ owner: c, run: () => this.quietly("forgetting a dropped connection's statements", forget) });
      return this.pump();
    }
    // It held the session: end what it left open before anyone else's turn.
    this.queue.unshift({
      owner: c,
      run: () =>
        this.quietly("ending a dropped connection's exchange", async () => {
          await this.exchange(SYNC);
          if (this.db.isInTransaction()) await this.exchange(simpleQuery('ROLLBACK'));
          await forget();
        }),
    });
    this.pump();
  }

  /** Runs the work of a gone connection's turn; a failure is logged, and the session is free after it. */
  private async quietly(what: string, work: () => Promise<unknown>): Promise<boolean> {
    try {
      await work();
    } catch (err) {
      this.opts.log(`${what} failed: ${(err as Error).message}`);
    }
    return false;
  }
}
