/// <reference lib="dom" />
/**
 * What every element of the kit does: read its connection from its attributes (`base-url`, `key`,
 * `player-token`, `tenant-domain`, `refresh`), load its view, show it in its shadow root, and load
 * it again when the player's events arrive on the feed (a key that may read it) or every `refresh`
 * seconds (any other key). Themed with CSS custom properties (`--gm-*`, which cross the shadow
 * boundary) and `::part()`. Each render dispatches `gm-update` (detail: the data); a failure shows
 * the service's code and message and dispatches `gm-error` (detail: the GamificationError).
 */
import type { GamificationClient } from '../client.ts';
import { GamificationError } from '../errors.ts';
import type { FeedEvent } from '../feed.ts';
import { connectionOf } from './connection.ts';

/** Seconds between two reads when the feed cannot be read. */
export const DEFAULT_REFRESH_SECONDS = 30;
/** At most one read per this many ms however many events arrive: a busy board reads once a second. */
const EVENT_READ_GAP_MS = 1000;

const CONNECTION_ATTRIBUTES = ['base-url', 'key', 'player-token', 'tenant-domain', 'refresh'];

const STYLE = `
:host {
  display: block;
  font-family: var(--gm-font, system-ui, sans-serif);
  font-size: var(--gm-font-size, 14px);
  color: var(--gm-color, #1f2328);
  background: var(--gm-background, #fff);
  border: 1px solid var(--gm-border, #d0d7de);
  border-radius: var(--gm-radius, 8px);
  padding: var(--gm-padding, 12px 16px);
}
:host([hidden]) { display: none; }
h3 { margin: 0 0 8px; font-size: 1.05em; color: var(--gm-heading-color, inherit); }
ol, ul { list-style: none; margin: 0; padding: 0; }
li { display: flex; gap: var(--gm-gap, 8px); align-items: baseline; padding: 4px 0; border-top: 1px solid var(--gm-divider, #eaeef2); }
li:first-child { border-top: none; }
.grow { flex: 1; min-width: 0; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.muted { color: var(--gm-muted, #656d76); font-size: 0.9em; }
.value { font-variant-numeric: tabular-nums; font-weight: 600; color: var(--gm-accent, #0969da); }
.me { background: var(--gm-highlight, #fff8c5); border-radius: 4px; }
.done { color: var(--gm-success, #1a7f37); }
.error { color: var(--gm-error, #cf222e); }
li.stack { display: block; }
.row { display: flex; gap: var(--gm-gap, 8px); align-items: baseline; }
progress { width: 100%; height: 6px; accent-color: var(--gm-accent, #0969da); }
`;

let sheet: CSSStyleSheet | null = null;
/** One constructed sheet for every element: no inline <style>, so a page's strict style-src holds. */
function styleSheet(): CSSStyleSheet {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLE);
  }
  return sheet;
}

/** Text made safe to put in HTML. */
export const escape = (value: unknown): string =>
  String(value ?? '').replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!,
  );

/** An amount as the service keeps it (up to 6 decimals), grouped for reading. */
export const amount = (n: number): string => n.toLocaleString(undefined, { maximumFractionDigits: 6 });

// Not a browser (Node importing the package): nothing to define, and no HTMLElement to extend.
const Base: typeof HTMLElement = globalThis.HTMLElement ?? (class {} as typeof HTMLElement);

export abstract class GamificationElement<Data> extends Base {
  static get observedAttributes(): string[] {
    return CONNECTION_ATTRIBUTES;
  }

  /** The element's title, shown above its view. */
  protected abstract heading(data: Data): string;
  /** Reads the view. */
  protected abstract load(client: GamificationClient): Promise<Data>;
  /** The view as HTML (every value escaped). */
  protected abstract render(data: Data): string;
  /** Whether an event of the feed may change the view (default: one of the element's player's). */
  protected concerns(event: FeedEvent): boolean {
    const player = this.getAttribute('player')?.toLowerCase();
    return !!player && event.data.stream === `player-${player}`;
  }

  readonly #root: ShadowRoot;
  #stop: (() => void) | null = null;
  #timer: ReturnType<typeof setTimeout> | null = null;
  #starting = false;
  #lastRead = 0;
  #generation = 0;

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    this.#root.adoptedStyleSheets = [styleSheet()];
  }

  connectedCallback(): void {
    this.#scheduleStart();
  }

  disconnectedCallback(): void {
    this.#halt();
  }

  attributeChangedCallback(): void {
    if (this.isConnected) this.#scheduleStart();
  }

  /** Reads the view again now. */
  refresh(): Promise<void> {
    return this.#read(this.#generation);
  }

  /** Attributes set one after the other (a page's script) restart the element once. */
  #scheduleStart(): void {
    if (this.#starting) return;
    this.#starting = true;
    queueMicrotask(() => {
      this.#starting = false;
      if (this.isConnected) void this.#start();
    });
  }

  #halt(): void {
    this.#generation++;
    this.#stop?.();
    this.#stop = null;
    if (this.#timer !== null) clearTimeout(this.#timer);
    this.#timer = null;
  }

  async #start(): Promise<void> {
    this.#halt();
    const generation = this.#generation;
    const key = this.getAttribute('key');
    if (!key) return this.#show(`<p class="muted" part="message">Set the key attribute.</p>`);
    this.#show(`<p class="muted" part="message">Loading…</p>`);
    // Listening first: the feed is followed from its head, so the first read misses no event after it.
    const listening = await this.#connection(key).listen((event) => {
      if (this.concerns(event)) this.#soon(generation);
    });
    if (generation !== this.#generation) return listening.stop();
    this.#stop = listening.stop;
    await this.#read(generation);
    if (!listening.live && generation === this.#generation) this.#every(generation);
  }

  #connection(key: string) {
    const location = globalThis.location;
    return connectionOf({
      baseUrl: this.getAttribute('base-url') || location?.origin || '',
      key,
      playerToken: this.getAttribute('player-token'),
      tenantDomain: this.getAttribute('tenant-domain') || location?.hostname || null,
    });
  }

  #client(): GamificationClient | null {
    const key = this.getAttribute('key');
    return key ? this.#connection(key).client : null;
  }

  /** Reads again every `refresh` seconds, until stopped. */
  #every(generation: number): void {
    const seconds = Number(this.getAttribute('refresh'));
    const ms = (Number.isFinite(seconds) && seconds > 0 ? seconds : DEFAULT_REFRESH_SECONDS) * 1000;
    this.#timer = setTimeout(() => {
      if (generation !== this.#generation) return;
      void this.#read(generation).finally(() => generation === this.#generation && this.#every(generation));
    }, ms);
  }

  /** Reads again after an event, at most once per EVENT_READ_GAP_MS. */
  #soon(generation: number): void {
    if (this.#timer !== null) return;
    const wait = Math.max(0, this.#lastRead + EVENT_READ_GAP_MS - Date.now());
    this.#timer = setTimeout(() => {
      this.#timer = null;
      if (generation === this.#generation) void this.#read(generation);
    }, wait);
  }

  async #read(generation: number): Promise<void> {
    const client = this.#client();
    if (!client) return;
    this.#lastRead = Date.now();
    try {
      const data = await this.load(client);
      if (generation !== this.#generation) return;
      this.#show(`<h3 part="heading">${escape(this.heading(data))}</h3>${this.render(data)}`);
      this.dispatchEvent(new CustomEvent('gm-update', { detail: data }));
    } catch (error) {
      if (generation !== this.#generation) return;
      const e = error instanceof GamificationError ? error : new GamificationError(0, String(error), 0);
      this.#show(`<p class="error" part="error" data-code="${e.code}">${escape(e.code)}: ${escape(e.message)}</p>`);
      this.dispatchEvent(new CustomEvent('gm-error', { detail: e }));
    }
  }

  #show(html: string): void {
    this.#root.innerHTML = html;
  }
}

/** Defines an element once (a second import of the kit, or a page's own definition, wins). */
export function define(name: string, element: CustomElementConstructor): void {
  if (globalThis.customElements && !customElements.get(name)) customElements.define(name, element);
}
