/** The console's shell: signing in and out, the page navigation, and hash routes (#/page/argument…). */
import { checkKey, onKeyRefused, session } from './api.js';
import { errorNote, field, h } from './dom.js';
import { catalogPage } from './pages/catalog.js';
import { experimentsPage } from './pages/experiments.js';
import { leaderboardsPage } from './pages/leaderboards.js';
import { leaguesPage } from './pages/leagues.js';
import { operationsPage } from './pages/operations.js';
import { overviewPage } from './pages/overview.js';
import { playerPage } from './pages/player.js';
import { tracePage } from './pages/trace.js';

/** Server and Auditor keys read everything; a Mobile key reads the boards and players only (the service's tiers). */
const OPERATORS = ['Server', 'Auditor'];
const PAGES = [
  { path: 'overview', label: 'Overview', render: overviewPage, tiers: OPERATORS },
  { path: 'leaderboards', label: 'Leaderboards', render: leaderboardsPage },
  { path: 'leagues', label: 'Leagues', render: leaguesPage, tiers: OPERATORS },
  { path: 'player', label: 'Player', render: playerPage },
  { path: 'trace', label: 'Trace', render: tracePage, tiers: OPERATORS },
  { path: 'catalog', label: 'Catalog', render: catalogPage, tiers: OPERATORS },
  { path: 'experiments', label: 'Experiments', render: experimentsPage, tiers: OPERATORS },
  { path: 'operations', label: 'Operations', render: operationsPage, tiers: OPERATORS },
];

/** The pages the signed-in key's tier can read; the first is where it lands. */
const pagesOfSession = () => PAGES.filter((page) => !page.tiers || page.tiers.includes(session.tier()));

const main = document.getElementById('main');
const nav = document.getElementById('nav');

/** What a refused key is told, by HTTP status. */
const REFUSALS = {
  401: 'This API key is not valid. Check it and try again.',
  403: 'Client keys cannot use the console. Sign in with a Server, Mobile or Auditor key.',
};

function signInView(message) {
  const key = h('input', { id: 'api-key', type: 'password', autocomplete: 'off', spellcheck: 'false', required: true });
  const status = h(
    'div',
    { 'aria-live': 'polite' },
    message ? h('p', { class: 'error', role: 'alert' }, message) : null,
  );
  const button = h('button', { type: 'submit' }, 'Sign in');
  const form = h(
    'form',
    {
      class: 'sign-in',
      async onsubmit(event) {
        event.preventDefault();
        button.disabled = true;
        status.replaceChildren(h('p', { class: 'muted' }, 'Checking the key…'));
        try {
          const tier = await checkKey(key.value.trim());
          session.begin(key.value.trim(), tier);
          route();
        } catch (error) {
          status.replaceChildren(
            REFUSALS[error.status]
              ? h('p', { class: 'error', role: 'alert' }, REFUSALS[error.status])
              : errorNote(error),
          );
          button.disabled = false;
          key.focus();
        }
      },
    },
    h('h1', {}, 'Sign in'),
    h(
      'p',
      {},
      'The console reads the game as an operator or an auditor sees it. It keeps your key in this tab only, until you sign out or close it.',
    ),
    field('API key', key, 'A Server, Mobile or Auditor key'),
    button,
    status,
  );
  nav.hidden = true;
  main.replaceChildren(form);
  key.focus();
}

function signOut(message) {
  session.end();
  // The page's address never held the key; the route is left so a new sign-in returns to it.
  signInView(message);
}

function renderNav(pages, current) {
  nav.replaceChildren(
    h(
      'ul',
      {},
      pages.map((page) =>
        h('li', {}, h('a', { href: `#/${page.path}`, 'aria-current': page === current ? 'page' : false }, page.label)),
      ),
    ),
    h('button', { type: 'button', class: 'secondary', onclick: () => signOut() }, 'Sign out'),
  );
  nav.hidden = false;
}

/** A route's segment as typed; one that is not valid percent-encoding is taken as it is. */
function decoded(segment) {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

function route() {
  if (!session.key()) return signInView();
  const [path, ...args] = location.hash.replace(/^#\/?/, '').split('/').map(decoded);
  const pages = pagesOfSession();
  const page = pages.find((p) => p.path === path) ?? pages[0];
  renderNav(pages, page);
  document.title = `${page.label} · Gamification console`;
  main.replaceChildren(h('h1', { tabindex: '-1' }, page.label), h('div', {}, page.render(args.filter(Boolean))));
  main.querySelector('h1').focus();
}

onKeyRefused(() => signOut('The service no longer accepts this key. Sign in again.'));
addEventListener('hashchange', route);
route();
