/**
 * The console: a read-only web page for operators and auditors, at /console. Its script and style
 * are files of the same origin (the Content-Security-Policy allows no inline script); the page
 * calls the API with the key the user signs in with, which it keeps in the tab's sessionStorage.
 */
import path from 'node:path';
import express, { type Router } from 'express';

export const CONSOLE_PATH = '/console';

const ASSETS = path.join(__dirname, 'assets');
const UPLOT = path.dirname(require.resolve('uplot/dist/uPlot.esm.js'));
/** The charting library's files, from its package: served here, as the console's own are (no CDN). */
const VENDOR: Readonly<Record<string, string>> = {
  'uPlot.esm.js': path.join(UPLOT, 'uPlot.esm.js'),
  'uPlot.min.css': path.join(UPLOT, 'uPlot.min.css'),
};

export function consolePages(): Router {
  const router = express.Router();
  // Revalidated on every load: a deployment's new script is picked up at once.
  const files = express.static(ASSETS, {
    index: false,
    redirect: false,
    cacheControl: false,
    setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
  });
  router.get(CONSOLE_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(path.join(ASSETS, 'index.html'));
  });
  router.get(`${CONSOLE_PATH}/vendor/:name`, (req, res, next) => {
    const file = Object.hasOwn(VENDOR, req.params.name) ? VENDOR[req.params.name] : undefined;
    if (!file) return next();
    // The files change only with the package's version: an hour's caching spares reloads.
    res.sendFile(file, { maxAge: 3_600_000 });
  });
  router.use(CONSOLE_PATH, files);
  return router;
}
