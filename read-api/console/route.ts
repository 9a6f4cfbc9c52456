/**
 * The console: a read-only web page for operators and auditors, at /console. Its script and style
 * are files of the same origin (the Content-Security-Policy allows no inline script); the page
 * calls the API with the key the user signs in with, which it keeps in the tab's sessionStorage.
 */
import path from 'node:path';
import express, { type Router } from 'express';

export const CONSOLE_PATH = '/console';

const ASSETS = path.join(__dirname, 'assets');

export function consolePages(): Router {
  const router = express.Router();
  // Revalidated on every load: a deployment's new script is picked up at once.
  const files = express.static(ASSETS, { index: false, redirect: false, cacheControl: false, setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache') });
  router.get(CONSOLE_PATH, (_req, res) => {
    res.setHeader('Cache-Control', 'no-cache');
    res.sendFile(path.join(ASSETS, 'index.html'));
  });
  router.use(CONSOLE_PATH, files);
  return router;
}
