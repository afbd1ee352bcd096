// Express serves what no surface took first (app/http.ts): GraphQL through yoga (GET, SSE, what is not a
// JSON POST), the .well-known documents, llms.txt and its pages, metrics, the problem pages and the console.
import express, { type NextFunction, type Request, type Response } from 'express';
import { GRAPHQL_PATH, GRAPHQL_SSE_PATH, maskErrorWith } from '../graphql/server';
import { aiPlugin, llmsPage, llmsTxt, LLMS_PAGES, LOGO_SVG } from '../protocols/manifests';
import { ConsoleFiles, CONSOLE_PATH } from '../src/console';
import type { Services } from '../src/domain/context';
import { createContext, rateSubject } from '../src/domain/request-context';
import { BadRequest, problem, problemDescription, problemTitle, type ProblemCode } from '../src/platform/errors';
import { clientAddress, requestIdOf, writeError, writeProblem } from '../src/platform/http';
import { serveMetrics } from '../src/platform/metrics';
import type { Documents, Surfaces } from './surfaces';

const GRAPHQL_BODY_LIMIT = 1024 * 1024;

export function expressApp(services: Services, { graphql, metrics, mcp, offered, openapi }: Surfaces, { compiled, tools }: Documents): express.Express {
  const { config, log, signingKeys } = services;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.get('/.well-known/jwks.json', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(signingKeys.jwks);
  });

  app.get('/.well-known/ai-plugin.json', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=300').json(aiPlugin(config.publicBaseUrl));
  });
  app.get('/.well-known/logo.svg', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=86400').type('image/svg+xml').send(LOGO_SVG);
  });
  app.get('/llms.txt', (_req, res) => {
    res
      .set('Cache-Control', 'public, max-age=300')
      .type('text/plain; charset=utf-8')
      .send(llmsTxt(config.publicBaseUrl, compiled, tools, offered, openapi(), mcp.toolsets));
  });
  // The page of each item /llms.txt lists: a REST operation or an MCP tool, in Markdown.
  app.get(`${LLMS_PAGES}/:kind/:file`, (req, res) => {
    const file = String(req.params.file);
    const page = file.endsWith('.md')
      ? llmsPage(config.publicBaseUrl, String(req.params.kind), file.slice(0, -3), compiled, tools, offered, openapi())
      : undefined;
    if (page === undefined) {
      writeError(res, config.publicBaseUrl, new BadRequest(`No page ${req.path}`, 404), requestIdOf(res));
      return;
    }
    res.set('Cache-Control', 'public, max-age=300').type('text/markdown; charset=utf-8').send(page);
  });

  app.get('/metrics', (req, res, next) => {
    serveMetrics(
      metrics,
      { limiter: services.limiter, token: config.metricsToken, trustProxy: config.trustProxy, publicBaseUrl: config.publicBaseUrl },
      req,
      res,
    ).catch(next);
  });

  app.get('/problems/:slug', (req, res) => {
    const code = req.params.slug.replace(/-/g, '_') as ProblemCode;
    if (!(code in problemTitle)) {
      writeError(res, config.publicBaseUrl, new BadRequest(`No problem type ${req.params.slug}`, 404), requestIdOf(res));
      return;
    }
    res
      .type('text/html')
      .send(
        `<!doctype html><html><head><title>${problemTitle[code]}</title></head><body><h1>${problemTitle[code]}</h1><p><code>${code}</code></p><p>${problemDescription[code]}</p></body></html>`,
      );
  });

  app.use(GRAPHQL_PATH, (req: Request, res: Response, next: NextFunction) => {
    if (Number(req.headers['content-length'] ?? 0) > GRAPHQL_BODY_LIMIT) {
      res.status(413).json({ errors: [{ message: 'The request body is larger than 1 MiB', extensions: { code: 'BAD_REQUEST' } }] });
      return;
    }
    next();
  });
  // A GraphQL event stream (graphql-sse, or Accept: text/event-stream on /graphql) is a held connection:
  // it takes a slot of its caller for as long as it stays open.
  app.use(GRAPHQL_PATH, (req: Request, res: Response, next: NextFunction) => {
    if (!req.originalUrl.startsWith(GRAPHQL_SSE_PATH) && !String(req.headers.accept ?? '').includes('text/event-stream')) return next();
    const ctx = createContext(services, {
      authorization: req.headers.authorization,
      requestId: requestIdOf(res),
      clientAddress: clientAddress(req, config.trustProxy),
    });
    Promise.resolve(rateSubject(ctx))
      .then((subject) => {
        const release = services.connectionSlots.take(subject);
        res.once('close', release);
        next();
      })
      .catch((err: unknown) => {
        const refusal = maskErrorWith(services)(err);
        res
          .status((refusal.extensions.http as { status?: number } | undefined)?.status ?? 500)
          .set('Retry-After', '5')
          .json({ errors: [{ message: refusal.message, extensions: { code: refusal.extensions.code } }] });
      });
  });
  app.use(GRAPHQL_PATH, graphql.yoga as unknown as express.RequestHandler);
  // The web console (src/console.ts): a GET or HEAD of any path under /console.
  const consoleFiles = new ConsoleFiles();
  app.use(CONSOLE_PATH, (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    const pathname = new URL(req.originalUrl, 'http://console').pathname;
    if (pathname !== CONSOLE_PATH && !pathname.startsWith(`${CONSOLE_PATH}/`)) return next();
    if (consoleFiles.serve(req, res, pathname)) return;
    writeProblem(
      res,
      problem(config.publicBaseUrl, 'service_unavailable', 'The console is not built on this instance: run `npm run console:build`', requestIdOf(res)),
    );
  });
  app.use((req: Request, res: Response) => {
    writeProblem(res, problem(config.publicBaseUrl, 'not_found', `No route ${req.method} ${req.path}`, requestIdOf(res)));
  });
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const written = writeError(res, config.publicBaseUrl, err, requestIdOf(res));
    if (written.code === 'internal') log.error({ err, request_id: requestIdOf(res) }, 'request failed');
  });
  return app;
}
