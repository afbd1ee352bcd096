// CPU time of a server from /proc (Linux), for scenarios that charge a server for the work of a window
// rather than count its answers: which of the benchmark's descendant processes holds the socket listening
// on a port (the process really serving it, whatever launcher sits above it), and that process's
// utime + stime (every thread's, including threads that have exited).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 nearly everywhere). */
const TICKS_PER_S = (() => {
  try {
    const n = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());
    return Number.isInteger(n) && n > 0 ? n : 100;
  } catch {
    return 100;
  }
})();

/** Seconds of CPU one tick is: the resolution of cpuSeconds. */
export const CPU_TICK_S = 1 / TICKS_PER_S;

/** /proc/<pid>/stat: the command name (which may itself hold spaces and parentheses) and the fields after it. */
function readStat(pid: number | string): { comm: string; fields: string[] } {
  const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
  return { comm: stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')')), fields: stat.slice(stat.lastIndexOf(')') + 2).split(' ') };
}

/** utime + stime of the process, in seconds (fields 14 and 15 of proc(5), 1-based, counting pid and comm). */
export function cpuSeconds(pid: number): number {
  const { fields } = readStat(pid);
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
}

/**
 * utime + stime of one thread of a process, in seconds: the main thread's (`tid` = `pid`, the default) is
 * the event loop's, without the helper threads beside it (V8's collector and compiler, an embedded
 * database's worker) that a window of wall time on a busy machine also holds.
 */
export function threadCpuSeconds(pid: number, tid: number = pid): number {
  const { fields } = readStat(`${pid}/task/${tid}`);
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_S;
}

/**
 * CPU of every process named `postgres` on this machine (utime + stime, and cutime + cstime for the
 * backends its postmaster has already reaped), in seconds; null when none runs here (a remote database).
 * Deltas of it charge the database server for a window's work when it shares the machine.
 */
export function postgresCpuSeconds(): number | null {
  let ticks = 0;
  let found = false;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const { comm, fields } = readStat(entry);
      if (comm !== 'postgres') continue;
      ticks += Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      found = true;
    } catch {
      continue; // exited while we looked
    }
  }
  return found ? ticks / TICKS_PER_S : null;
}

/** The process's command line, for the log. */
export function commandLine(pid: number): string {
  try {
    return fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ');
  } catch {
    return '?';
  }
}

/** Every process descended from `root` (not root itself). */
function descendants(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let ppid: number;
    try {
      ppid = Number(readStat(entry).fields[1]);
    } catch {
      continue; // exited while we looked
    }
    const list = children.get(ppid) ?? [];
    list.push(Number(entry));
    children.set(ppid, list);
  }
  const out: number[] = [];
  const queue = [root];
  while (queue.length) {
    for (const child of children.get(queue.shift()!) ?? []) {
      out.push(child);
      queue.push(child);
    }
  }
  return out;
}

/** Inodes of the TCP sockets listening on `port` (any address, IPv4 or IPv6). */
function listeningInodes(port: number): Set<string> {
  const inodes = new Set<string>();
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text: string;
    try {
      text = fs.readFileSync(file, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      // sl local_address rem_address st … inode; st 0A is LISTEN.
      if (cols.length > 9 && cols[1].endsWith(`:${hexPort}`) && cols[3] === '0A') inodes.add(cols[9]);
    }
  }
  return inodes;
}

/**
 * The process among this one's descendants that holds the socket listening on `port`. Throws when none
 * does: charging the wrong process (a launcher, say) would make the CPU figures meaningless.
 */
export function listeningPid(port: number): number {
  const inodes = listeningInodes(port);
  if (!inodes.size) throw new Error(`nothing listens on port ${port}`);
  for (const pid of descendants(process.pid)) {
    let fds: string[];
    try {
      fds = fs.readdirSync(`/proc/${pid}/fd`);
    } catch {
      continue;
    }
    for (const fd of fds) {
      let link: string;
      try {
        link = fs.readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
      if (inode && inodes.has(inode)) return pid;
    }
  }
  throw new Error(`no process started by the benchmark listens on port ${port}`);
}

/** The process serving `url`'s port (the node process itself, not a launcher above it), for the log and /proc. */
export function serverPid(url: string): number {
  return listeningPid(Number(new URL(url).port));
}
