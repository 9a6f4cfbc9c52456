/**
 * The demo page: the settings come from the form, or from the address's fragment
 * (#key=…&player=…&token=…&board=…&league=…&refresh=…, never sent to the server), and are set as the
 * components' attributes. The key and token stay in this tab.
 */
import './gm-components.js';

const form = document.getElementById('settings');
const kit = document.getElementById('kit');
const FIELDS = ['key', 'player', 'token', 'board', 'league', 'refresh'];

/** The attributes each element takes from the settings. */
function attributesOf(element, settings) {
  const attributes = { key: settings.key, player: settings.player, refresh: settings.refresh };
  // A leaderboard or a league needs no token: any key may read them.
  if (element.localName === 'gm-leaderboard') attributes.board = settings.board;
  else if (element.localName === 'gm-league') attributes.league = settings.league;
  else attributes['player-token'] = settings.token;
  return attributes;
}

function show(settings) {
  const lines = [];
  for (const element of kit.children) {
    // No league named (a catalog without leagues): no league element.
    element.hidden = element.localName === 'gm-league' && !settings.league;
    if (element.hidden) continue;
    const attributes = attributesOf(element, settings);
    for (const [name, value] of Object.entries(attributes)) {
      if (value) element.setAttribute(name, value);
      else element.removeAttribute(name);
    }
    const shown = [...element.attributes].map((a) =>
      a.name === 'key' || a.name === 'player-token' ? `${a.name}="…"` : `${a.name}="${a.value}"`,
    );
    lines.push(`<${element.localName} ${shown.join(' ')}></${element.localName}>`);
  }
  document.getElementById('snippet').textContent = [
    `<script type="module" src="${location.origin}/kit/gm-components.js"></script>`,
    ...lines,
  ].join('\n');
  kit.hidden = false;
  document.getElementById('markup').hidden = false;
}

form.addEventListener('submit', (event) => {
  event.preventDefault();
  show(Object.fromEntries(FIELDS.map((name) => [name, form.elements[name].value.trim()])));
});

const given = new URLSearchParams(location.hash.slice(1));
for (const name of FIELDS) if (given.has(name)) form.elements[name].value = given.get(name);
if (given.has('key') && given.has('player')) form.requestSubmit();
