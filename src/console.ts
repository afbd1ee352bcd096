// The web console (console/, docs/console.md), served at /console from its build: made by Vite at install
// (`npm run console:build`, from the postinstall) into node_modules/.cache/marketplace-console. The files
// are read once, at the first request, and kept with their gzip: the build is a few hundred kilobytes. The
// hashed assets are cached for good; every other path under /console is the page itself (index.html, never
// cached), whose router shows what the path names. The page talks to this origin only (its CSP).
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import type { IncomingMessage, ServerResponse } from 'node:http';

export const CONSOLE_PATH = '/console';
export const CONSOLE_BUILD_DIR = path.join(__dirname, '..', 'node_modules', '.cache', 'marketplace-console');

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

/**
 * Scripts and styles from this origin only, no framing, and connections to this origin (its GraphQL over
 * HTTP and WebSocket: 'self' covers ws: and wss: of the same host).
 */
const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy':
    "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
};

interface ConsoleFile {
  body: Buffer;
  gzip: Buffer;
  type: string;
  immutable: boolean;
}

export class ConsoleFiles {
  private files: Map<string, ConsoleFile> | null = null;

  constructor(private readonly dir = CONSOLE_BUILD_DIR) {}

  /** Whether a build is there to serve (looked for until one is found and read). */
  get built(): boolean {
    return this.files !== null || fs.existsSync(path.join(this.dir, 'index.html'));
  }

  private load(): Map<string, ConsoleFile> {
    if (this.files) return this.files;
    const files = new Map<string, ConsoleFile>();
    const walk = (dir: string) => {
      for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) walk(full);
        else if (entry.isFile()) {
          const rel = '/' + path.relative(this.dir, full).split(path.sep).join('/');
          const body = fs.readFileSync(full);
          files.set(rel, {
            body,
            gzip: zlib.gzipSync(body, { level: 9 }),
            type: TYPES[path.extname(full)] ?? 'application/octet-stream',
            immutable: rel.startsWith('/assets/'),
          });
        }
      }
    };
    walk(this.dir);
    this.files = files;
    return files;
  }

  /**
   * Answers a GET or HEAD under /console: an asset by its path, the page for any other path. Answers false
   * when there is no build (the caller says so as a problem).
   */
  serve(req: IncomingMessage, res: ServerResponse, pathname: string): boolean {
    if (!this.built) return false;
    const files = this.load();
    const rel = pathname.slice(CONSOLE_PATH.length) || '/';
    const asset = rel !== '/' && rel !== '/index.html' ? files.get(rel) : undefined;
    // A path that looks like a file (an old asset after a new build) is 404, not the page.
    if (!asset && rel.startsWith('/assets/')) {
      res.writeHead(404, { 'Content-Type': 'text/plain; charset=utf-8', ...SECURITY_HEADERS }).end('No such console file');
      return true;
    }
    const file = asset ?? files.get('/index.html');
    if (!file) return false;
    const gzip = /\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''));
    const body = gzip ? file.gzip : file.body;
    res.writeHead(200, {
      'Content-Type': file.type,
      'Content-Length': String(body.length),
      'Cache-Control': file.immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
      Vary: 'Accept-Encoding',
      ...(gzip ? { 'Content-Encoding': 'gzip' } : {}),
      ...SECURITY_HEADERS,
    });
    res.end(req.method === 'HEAD' ? undefined : body);
    return true;
  }
}
