/** The HTTP shell shared by every role: headers, request ids and logs, body parsing, routes, errors. */
import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import helmet from 'helmet';
import {
  StoreFaultError,
  StoreOutcomeUnknownError,
  StoreUnavailableError,
  WrongExpectedVersionError,
  type WriteProblem,
} from '../event-store/port';
import { failure, type Failure } from '../../../domain/result';
import { sendData, sendFailure } from './envelope';
import { ERRORS } from '../../../domain/errors';
import { OPERATORS } from '../auth/access';
import { METRICS_CONTENT_TYPE, type ServiceMetrics } from '../metrics';
import { cors } from './cors';
import { REFERENCE_ASSETS_PATH, REFERENCE_PATH, referenceRouter } from './reference/page';
import { MAX_BODY_BYTES, mountRoutes, routeHandlers, type AnyRoute, type RouteDeps, type RouteHandler } from './route';

export { MAX_BODY_BYTES };
/** Arrays and objects inside one another a body may hold: far above any request's shape, far below what a recursive walk (the Idempotency-Key's fingerprint) can take. */
export const MAX_BODY_DEPTH = 32;

const STORE_UNAVAILABLE = 'Service unavailable: a backing store is not answering; retry later';

/** How long readiness waits for one check: a store that does not answer by then is not ready. */
export const READY_CHECK_TIMEOUT_MS = 2000;

/** One thing a process needs to take its work: its name, and why it cannot now (null: it can). */
export interface ReadinessCheck {
  name: string;
  problem(): Promise<string | null> | string | null;
}

/** The checks that fail, each as `name: why`, all asked at once, each given READY_CHECK_TIMEOUT_MS. */
async function failingChecks(checks: readonly ReadinessCheck[]): Promise<string[]> {
  const outcomes = await Promise.all(
    checks.map(async ({ name, problem }) => {
      let timer: NodeJS.Timeout | undefined;
      const late = new Promise<string>(
        (resolve) =>
          (timer = setTimeout(() => resolve(`no answer within ${READY_CHECK_TIMEOUT_MS} ms`), READY_CHECK_TIMEOUT_MS)),
      );
      try {
        const why = await Promise.race([Promise.resolve().then(problem), late]);
        return why === null ? null : `${name}: ${why}`;
      } catch (error) {
        return `${name}: ${error instanceof Error ? error.message : String(error)}`;
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return outcomes.filter((why): why is string => why !== null);
}

/** What every process serves without a key: liveness, readiness, and the API's own description. */
export const PUBLIC_PATHS = {
  home: '/',
  health: '/health',
  ready: '/health/ready',
  openApi: '/openapi.json',
  docs: REFERENCE_PATH,
} as const;
/** The same, for whole folders: the reference page's files. */
export const PUBLIC_PREFIXES = { docsAssets: REFERENCE_ASSETS_PATH } as const;

/** Requests whose body was sent but empty (`Content-Length: 0`): the parser makes them `{}`; they count as absent (1001). */
const emptyBodies = new WeakSet<object>();
/** Thrown by the parser's check of the raw body: the body nests deeper than MAX_BODY_DEPTH. */
class TooDeepError extends Error {}
const jsonBodyUpTo = (limit: number) =>
  express.json({
    limit,
    strict: false,
    type: () => true,
    verify: (req, _res, raw) => {
      if (raw.length === 0) emptyBodies.add(req);
      // Checked on the bytes, before JSON.parse builds it and anything walks it.
      if (nestingDepthAbove(raw, MAX_BODY_DEPTH)) throw new TooDeepError();
    },
  });
const jsonBody = jsonBodyUpTo(MAX_BODY_BYTES);

const TOO_DEEP = failure(1001, `Payload nested too deeply: at most ${MAX_BODY_DEPTH} levels of arrays and objects`);
const NOT_JSON = failure(1001, 'Payload is null: the body is not valid JSON');

/**
 * Reads the body of the usual request without body-parser's machinery: its length stated and
 * within `limit`, no Content-Encoding, no charset named (UTF-8). It parses the same, with the
 * same problems: empty is absent, too deep, not JSON; a leading BOM is dropped, as body-parser's
 * decoder drops it. Any other request is left to body-parser (false), which inflates, decodes
 * other charsets, reads chunked bodies and refuses too large ones.
 */
function readPlainBody(req: Request, res: Response, limit: number, then: () => void): boolean {
  const { headers } = req;
  const stated = headers['content-length'];
  if (
    stated === undefined ||
    headers['transfer-encoding'] !== undefined ||
    headers['content-encoding'] !== undefined ||
    !/^\d{1,9}$/.test(stated) ||
    Number(stated) > limit ||
    (headers['content-type'] !== undefined && /charset/i.test(headers['content-type']))
  )
    return false;
  const chunks: Buffer[] = [];
  const refuse = (problem: Failure) => {
    res.locals.bodyError = problem;
    res.locals.bodyErrorStatus = 400;
    req.body = undefined;
  };
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.once('error', () => {
    // The client went mid-body: nothing will read the answer, but the request ends as body-parser's would.
    if (req.complete) return;
    refuse(NOT_JSON);
    then();
  });
  req.once('end', () => {
    const raw = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks);
    req.body = undefined;
    if (nestingDepthAbove(raw, MAX_BODY_DEPTH)) refuse(TOO_DEEP);
    else if (raw.length > 0) {
      const text = raw.toString('utf8');
      try {
        req.body = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
      } catch {
        refuse(NOT_JSON);
      }
    }
    then();
  });
  return true;
}

/** Whether JSON text nests arrays and objects deeper than `max` (brackets inside strings do not count). */
export function nestingDepthAbove(raw: Uint8Array, max: number): boolean {
  const QUOTE = 0x22,
    BACKSLASH = 0x5c,
    OPEN_ARRAY = 0x5b,
    CLOSE_ARRAY = 0x5d,
    OPEN_OBJECT = 0x7b,
    CLOSE_OBJECT = 0x7d;
  let depth = 0;
  let inString = false;
  for (let i = 0; i < raw.length; i++) {
    const byte = raw[i];
    if (inString) {
      if (byte === BACKSLASH) i++;
      else if (byte === QUOTE) inString = false;
    } else if (byte === QUOTE) inString = true;
    else if (byte === OPEN_ARRAY || byte === OPEN_OBJECT) {
      if (++depth > max) return true;
    } else if (byte === CLOSE_ARRAY || byte === CLOSE_OBJECT) depth--;
  }
  return false;
}

/** The body parsers of the POST routes that take larger bodies than the default, by path; every other route keeps MAX_BODY_BYTES. */
function largerBodies(
  routes: readonly AnyRoute[],
): Map<string, { limit: number; parse: ReturnType<typeof jsonBodyUpTo> }> {
  const parsers = new Map<string, { limit: number; parse: ReturnType<typeof jsonBodyUpTo> }>();
  for (const route of routes) {
    if (route.method !== 'POST' || route.maxBodyBytes === undefined) continue;
    // Looked up by the request's path before routing: a path with parameters would never match.
    if (route.path.includes(':')) throw new Error(`maxBodyBytes needs a static path: ${route.path}`);
    parsers.set(route.path, { limit: route.maxBodyBytes, parse: jsonBodyUpTo(route.maxBodyBytes) });
  }
  return parsers;
}

/**
 * The HTTP shell shared by every role: security headers, correlation ids, request logs,
 * body parsing whose errors are reported after authentication, the routes, and an error
 * handler that never leaks a stack trace.
 */
export interface HttpAppDeps extends RouteDeps {
  metrics: ServiceMetrics;
  /** The tenant domains of the Client keys: the origins browsers may call Client routes from. */
  clientDomains: ReadonlySet<string>;
  /** Start-up is over (and shutdown not begun). */
  isStarted(): boolean;
  /** What stops this process doing its work now (docs/operations.md, "Operating it"); lasting ones fail liveness too. */
  workProblem(): WriteProblem | null;
  /** Readiness also asks these: the backends the role uses, its projections. */
  readiness?: readonly ReadinessCheck[];
  /** The OpenAPI document of the API, served at /openapi.json and shown by the page at /docs. */
  documentation: { document: object };
  /** Routes of the API another process serves: answered 404 saying which (`servedBy`, e.g. "the command role"). */
  elsewhere: readonly { method: 'GET' | 'POST'; path: string; servedBy: string }[];
  /** X-Forwarded-Proto is the proxy's word on how the client connected (TRUST_PROXY). */
  trustProxy: boolean;
  /** Browser pages this process serves (the console); they call the API like any client. */
  pages?: readonly Router[];
  /** Where those pages are, by name (e.g. console: "/console"): GET / lists them with the public paths. */
  pagePaths?: Readonly<Record<string, string>>;
}

/**
 * The headers a helmet middleware sets, asked of it once: they depend only on its options, so
 * every request gets the same list written straight, not helmet's walk of its header functions.
 */
function securityHeaders(middleware: ReturnType<typeof helmet>): readonly (readonly [string, string])[] {
  const headers: [string, string][] = [];
  const recorder = {
    setHeader: (name: string, value: string) => headers.push([name, value]),
    // X-Powered-By: express's is disabled above (`x-powered-by`), so there is none to remove.
    removeHeader: () => undefined,
  };
  let failed: unknown;
  middleware({} as never, recorder as never, (err?: unknown) => (failed = err));
  if (failed) throw failed instanceof Error ? failed : new Error(String(failed));
  return headers;
}

/** The methods each path of the API takes (HEAD with GET, as express answers it), the public GET paths included. */
function methodsByPath(routes: readonly AnyRoute[], elsewhere: HttpAppDeps['elsewhere']): Map<string, Set<string>> {
  const byPath = new Map<string, Set<string>>();
  const add = (method: string, path: string) => {
    const methods = byPath.get(path) ?? new Set<string>();
    for (const m of method === 'GET' ? ['GET', 'HEAD'] : [method]) methods.add(m);
    byPath.set(path, methods);
  };
  for (const path of [PUBLIC_PATHS.home, PUBLIC_PATHS.health, PUBLIC_PATHS.ready, PUBLIC_PATHS.openApi, '/metrics'])
    add('GET', path);
  for (const { method, path } of [...routes, ...elsewhere]) add(method, path);
  return byPath;
}

export function createHttpApp(routes: AnyRoute[], deps: HttpAppDeps): express.Express {
  const app = express();
  app.disable('x-powered-by');
  // Answers are per request and per key; hashing every body for an ETag costs more than it saves.
  app.set('etag', false);
  app.set('query parser', 'simple');
  // X-Forwarded-Proto counts (req.secure) only from a proxy the operator says is there.
  app.set('trust proxy', deps.trustProxy);
  // Cross-Origin-Resource-Policy is the CORS middleware's: cross-origin exactly where CORS allows.
  // HSTS and upgrade-insecure-requests only over HTTPS: over plain HTTP they send a browser to an
  // https:// address nothing answers, and the console and /docs stay blank off localhost.
  const overTls = securityHeaders(helmet({ crossOriginResourcePolicy: false }));
  const overPlainHttp = securityHeaders(
    helmet({
      crossOriginResourcePolicy: false,
      strictTransportSecurity: false,
      contentSecurityPolicy: { directives: { upgradeInsecureRequests: null } },
    }),
  );
  const corsHeaders = cors(routes, deps.clientDomains);
  const larger = largerBodies(routes);
  const handlers = routeHandlers(routes, deps);
  // The routes at a fixed path, by path and method as a client spells them: served without
  // express's router (see `app.handle` below); the router still serves them when spelt otherwise
  // (another case, a trailing slash, an absolute URL as the request's target).
  const direct = new Map<string, Map<string, { path: string; serve: RouteHandler }>>();
  for (const { route, serve } of handlers) {
    if (route.path.includes(':')) continue;
    const methods = direct.get(route.path) ?? new Map<string, { path: string; serve: RouteHandler }>();
    direct.set(route.path, methods.set(route.method, { path: route.path, serve }));
  }

  // The request lines' fields are fixed below, none of them a secret: the redaction every other
  // line goes through (a copy of the line, each path parsed again) would cost them a third of
  // their CPU and 7 KB of garbage, for nothing.
  const requestLines = deps.log.child({}, { redact: { paths: [] } });
  /** The request's log line and metric, when its answer is sent; one function for all (`this` is the response). */
  function requestFinished(this: Response): void {
    const req = this.req;
    const ms = Number(process.hrtime.bigint() - (this.locals.started as bigint)) / 1e6;
    requestLines.info(
      {
        correlationId: this.locals.correlationId,
        method: req.method,
        path: req.path,
        status: this.statusCode,
        ms,
        keyName: this.locals.keyName,
      },
      'request',
    );
    // By route pattern, not path: a label per player id would grow without end.
    deps.metrics.request(
      req.method,
      (this.locals.routePath as string | undefined) ??
        (req.route as { path?: string } | undefined)?.path ??
        'unmatched',
      this.statusCode,
      ms / 1000,
    );
  }

  /** The body's parse, its problem kept for the route to answer after authentication (1001). */
  function readBody(req: Request, res: Response, then: () => void): void {
    const own = larger.get(req.path);
    const limit = own?.limit ?? MAX_BODY_BYTES;
    if (readPlainBody(req, res, limit, then)) return;
    (own?.parse ?? jsonBody)(req, res, (err?: unknown) => {
      if (err) {
        const type = (err as { type?: string }).type;
        res.locals.bodyError =
          type === 'entity.too.large'
            ? failure(1001, `Payload too large: at most ${limit} bytes`)
            : err instanceof TooDeepError
              ? TOO_DEEP
              : NOT_JSON;
        res.locals.bodyErrorStatus = type === 'entity.too.large' ? 413 : 400;
        req.body = undefined;
      } else if (emptyBodies.has(req)) req.body = undefined;
      then();
    });
  }

  /** What every request gets: security headers, CORS, its id, its log line and metric; false when CORS answered it (a preflight). */
  function begin(req: Request, res: Response): boolean {
    for (const [name, value] of req.secure ? overTls : overPlainHttp) res.setHeader(name, value);
    if (corsHeaders(req, res)) return false;
    const given = req.get('X-Request-Id');
    const correlationId = given && /^[A-Za-z0-9._:-]{1,100}$/.test(given) ? given : randomUUID();
    res.locals.correlationId = correlationId;
    res.setHeader('X-Request-Id', correlationId);
    res.locals.started = process.hrtime.bigint();
    res.on('finish', requestFinished);
    return true;
  }

  app.use((req: Request, res: Response, next: NextFunction) => {
    if (!begin(req, res)) return;
    if (req.method === 'POST') readBody(req, res, next);
    else next();
  });

  // Liveness: the process works, or needs the operator and a restart (a lasting fault).
  app.get(PUBLIC_PATHS.health, (_req, res) => {
    const problem = deps.isStarted() ? deps.workProblem() : null;
    if (!deps.isStarted()) sendFailure(res, failure(503, 'Starting'));
    else if (problem?.lasting) sendFailure(res, failure(503, `Not live: ${problem.reason}`));
    else res.json({ code: 200, data: { status: 'ok' } });
  });
  // Readiness: the process can take its work now (a writer: writes).
  app.get(PUBLIC_PATHS.ready, async (_req, res) => {
    const problem = deps.isStarted() ? deps.workProblem() : null;
    if (!deps.isStarted()) return sendFailure(res, failure(503, 'Starting'));
    if (problem) return sendFailure(res, failure(503, `Not ready: ${problem.reason}`));
    const failing = await failingChecks(deps.readiness ?? []);
    if (failing.length) return sendFailure(res, failure(503, `Not ready: ${failing.join('; ')}`));
    res.json({ code: 200, data: { status: 'ready' } });
  });

  // For Prometheus: an operator's key (Server or Auditor), e.g. as `Authorization: Bearer <key>`.
  app.get('/metrics', async (req, res) => {
    const auth = deps.authorize(req, OPERATORS, false);
    if (!auth.ok) return sendFailure(res, auth.failure);
    res.type(METRICS_CONTENT_TYPE).send(await deps.metrics.text());
  });

  // Where things are, for whoever opens the bare address (a browser, curl): not a 404.
  app.get(PUBLIC_PATHS.home, (_req, res) => {
    const { health, ready, openApi, docs } = PUBLIC_PATHS;
    sendData(res, { ...deps.pagePaths, docs, openApi, health, ready, metrics: '/metrics' });
  });

  // The API's own description is public, like /health.
  app.get(PUBLIC_PATHS.openApi, (_req, res) => {
    res.json(deps.documentation.document);
  });
  app.use(referenceRouter());

  for (const pages of deps.pages ?? []) app.use(pages);

  const router = express.Router();
  mountRoutes(router, handlers);
  for (const { method, path, servedBy } of deps.elsewhere) {
    router[method === 'GET' ? 'get' : 'post'](path, (req: Request, res: Response) =>
      sendFailure(res, failure(404, `Not served here: ${method} ${req.path} is served by ${servedBy}`), 404),
    );
  }
  // A known path asked with another method: 405 naming the ones it takes, not a misleading 404.
  for (const [path, methods] of methodsByPath(routes, deps.elsewhere)) {
    const allow = [...methods].join(', ');
    router.all(path, (req: Request, res: Response) => {
      res.setHeader('Allow', allow);
      sendFailure(res, failure(405, `Method not allowed: ${req.path} takes ${allow}`), 405);
    });
  }
  app.use(router);

  app.use((_req: Request, res: Response) => sendFailure(res, failure(404, 'Not found'), 404));

  const answerFault = (err: unknown, res: Response) => {
    const answer = faultAnswer(err, res);
    // A fault after the answer went out (a late step of the request) has nothing left to send.
    if (!res.headersSent) sendFailure(res, answer.failure, answer.status);
  };
  const faultAnswer = (err: unknown, res: Response): { failure: Failure; status?: number } => {
    // A retry loop over a shared stream (stock, activations) that kept losing: contention, not a fault.
    if (err instanceof WrongExpectedVersionError) {
      deps.log.warn({ correlationId: res.locals.correlationId, err: err.message }, 'gave up on a contended stream');
      return {
        failure: failure(ERRORS.TOO_MANY_CONCURRENT_CHANGES.code, ERRORS.TOO_MANY_CONCURRENT_CHANGES.message),
      };
    }
    // Reported once, when the store found it; every write since is refused the same way.
    if (err instanceof StoreFaultError) return { failure: failure(503, STORE_UNAVAILABLE) };
    // Not "changed nothing": the write may have been done, or may still be.
    if (err instanceof StoreOutcomeUnknownError) {
      deps.log.error({ correlationId: res.locals.correlationId, err: err.message }, 'write outcome unknown');
      return { failure: failure(ERRORS.OUTCOME_UNKNOWN.code, ERRORS.OUTCOME_UNKNOWN.message) };
    }
    if (err instanceof StoreUnavailableError) {
      deps.log.error({ correlationId: res.locals.correlationId, err: err.message }, 'store unavailable');
      return { failure: failure(503, STORE_UNAVAILABLE) };
    }
    // A client's malformed request that express itself rejects (a path segment that is not valid
    // percent-encoding: URIError with status 400) is the client's fault, not a 500.
    const status = (err as { status?: unknown } | null)?.status;
    if (typeof status === 'number' && status >= 400 && status < 500 && !res.headersSent) {
      return { failure: failure(1001, 'Bad request: the URL or request is malformed'), status: 400 };
    }
    // The class and message, never the stack: no log line carries a stack trace.
    deps.log.error(
      {
        correlationId: res.locals.correlationId,
        errorClass: err instanceof Error ? err.constructor.name : typeof err,
        err: err instanceof Error ? err.message : String(err),
      },
      'unexpected fault',
    );
    return { failure: failure(500, 'Internal error') };
  };
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) => answerFault(err, res));

  // The routes at a fixed path skip express's router, whose walk allocates about 18 KB per
  // request in closures and parameter objects: the request gets express's request and response
  // (as its own `handle` gives them), what every request gets, its body, and the route's handler;
  // a fault goes to the same answer as the router's.
  const dispatcher = app as unknown as { handle(req: IncomingMessage, res: ServerResponse, done?: unknown): void };
  const viaRouter = dispatcher.handle.bind(app);
  dispatcher.handle = (req, res, done) => {
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const route = direct.get(query === -1 ? url : url.slice(0, query))?.get(req.method ?? '');
    if (!route) return viaRouter(req, res, done);
    // Born with express's prototypes when the server was given `expressMessageClasses`.
    const request = (isPrototypeOf(app.request, req) ? req : Object.setPrototypeOf(req, app.request)) as Request;
    const response = (isPrototypeOf(app.response, res) ? res : Object.setPrototypeOf(res, app.response)) as Response;
    request.res = response;
    response.req = request;
    response.locals = Object.create(null) as Response['locals'];
    if (!begin(request, response)) return;
    response.locals.routePath = route.path;
    request.params = {};
    const serve = () => void route.serve(request, response).catch((err: unknown) => answerFault(err, response));
    if (request.method === 'POST') readBody(request, response, serve);
    else serve();
  };
  return app;
}

const isPrototypeOf = (prototype: object, object: object): boolean =>
  Object.prototype.isPrototypeOf.call(prototype, object);

/**
 * Node's request and response classes with express's prototypes beneath them, for
 * `http.createServer`: each request is made an express request when it is built, instead of
 * having its prototype swapped on the way in, which costs V8 the object's fast shape.
 */
export function expressMessageClasses(app: express.Express): {
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse<IncomingMessage>;
} {
  class ExpressRequest extends IncomingMessage {}
  Object.setPrototypeOf(ExpressRequest.prototype, app.request);
  class ExpressResponse extends ServerResponse<IncomingMessage> {}
  Object.setPrototypeOf(ExpressResponse.prototype, app.response);
  return { IncomingMessage: ExpressRequest, ServerResponse: ExpressResponse };
}
