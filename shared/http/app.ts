import { randomUUID } from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import helmet from 'helmet';
import { StoreUnavailableError, WrongExpectedVersionError } from '../event-store/port';
import { failure, sendFailure, TOO_MANY_CONCURRENT_CHANGES } from './envelope';
import { mountRoutes, type AnyRoute, type RouteDeps } from './route';

export const MAX_BODY_BYTES = 64 * 1024;

/** Requests whose body was sent but empty (`Content-Length: 0`): the parser makes them `{}`, decisions.md §2 calls them absent. */
const emptyBodies = new WeakSet<object>();
const jsonBody = express.json({ limit: MAX_BODY_BYTES, strict: false, type: () => true, verify: (req, _res, raw) => void (raw.length === 0 && emptyBodies.add(req)) });

/**
 * The HTTP shell shared by every role: security headers, correlation ids, request logs,
 * body parsing whose errors are reported after authentication, the routes, and an error
 * handler that never leaks a stack trace.
 */
export interface HttpAppDeps extends RouteDeps {
  isReady(): boolean;
  /** The OpenAPI document of the routes, served at /openapi.json, and its page at /docs. */
  documentation: { document: object; page: string };
}

export function createHttpApp(routes: AnyRoute[], deps: HttpAppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // Answers are per request and per key; hashing every body for an ETag costs more than it saves.
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.use(helmet());

  app.use((req: Request, res: Response, next: NextFunction) => {
    const given = req.get('X-Request-Id');
    const correlationId = given && /^[A-Za-z0-9._:-]{1,100}$/.test(given) ? given : randomUUID();
    res.locals.correlationId = correlationId;
    res.setHeader('X-Request-Id', correlationId);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      deps.log.info(
        { correlationId, method: req.method, path: req.path, status: res.statusCode, ms: Number(process.hrtime.bigint() - started) / 1e6, keyName: res.locals.keyName },
        'request',
      );
    });
    next();
  });

  app.use((req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'POST') return next();
    jsonBody(req, res, (err?: unknown) => {
      if (err) {
        const type = (err as { type?: string }).type;
        res.locals.bodyError = type === 'entity.too.large' ? failure(1001, `Payload too large: at most ${MAX_BODY_BYTES} bytes`) : failure(1001, 'Payload is null: the body is not valid JSON');
        res.locals.bodyErrorStatus = type === 'entity.too.large' ? 413 : 400;
        req.body = undefined;
      } else if (emptyBodies.has(req)) req.body = undefined;
      next();
    });
  });

  app.get('/health', (_req, res) => {
    if (deps.isReady()) res.json({ code: 200, data: { status: 'ok' } });
    else sendFailure(res, failure(503, 'Starting'));
  });

  // The API's own description is public, like /health.
  app.get('/openapi.json', (_req, res) => {
    res.json(deps.documentation.document);
  });
  app.get('/docs', (_req, res) => {
    res.type('html').send(deps.documentation.page);
  });

  const router = express.Router();
  mountRoutes(router, routes, deps);
  app.use(router);

  app.use((_req: Request, res: Response) => sendFailure(res, failure(404, 'Not found'), 404));

  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => {
    // A retry loop over a shared stream (stock, activations) that kept losing: contention, not a fault.
    if (err instanceof WrongExpectedVersionError) {
      deps.log.warn({ correlationId: res.locals.correlationId, err: err.message }, 'gave up on a contended stream');
      return sendFailure(res, failure(503, TOO_MANY_CONCURRENT_CHANGES));
    }
    if (err instanceof StoreUnavailableError) {
      deps.log.error({ correlationId: res.locals.correlationId, err: err.message }, 'store unavailable');
      return sendFailure(res, failure(503, 'Service unavailable: a backing store is not answering; retry later'));
    }
    // A client's malformed request that express itself rejects (a path segment that is not valid
    // percent-encoding: URIError with status 400) is the client's fault, not a 500.
    const status = (err as { status?: unknown } | null)?.status;
    if (typeof status === 'number' && status >= 400 && status < 500 && !res.headersSent) {
      return sendFailure(res, failure(1001, 'Bad request: the URL or request is malformed'), 400);
    }
    // The class and message, never the stack: no log line carries a stack trace.
    deps.log.error({ correlationId: res.locals.correlationId, errorClass: err instanceof Error ? err.constructor.name : typeof err, err: err instanceof Error ? err.message : String(err) }, 'unexpected fault');
    if (res.headersSent) return;
    sendFailure(res, failure(500, 'Internal error'));
  });
  return app;
}
