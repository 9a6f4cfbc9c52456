/** The player page's activity chart: the player's actions per day over the last 30 days, counted from their stream. */
import { get } from '../api.js';
import { dayTable, figure, lineChart } from '../charts.js';

const DAYS = 30;
const DAY_MS = 86_400_000;
/** The most events the audit read answers at a time. */
const PAGE = 1000;

/** This computer's date of an instant. */
function localDay(ms) {
  const d = new Date(ms);
  return `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;
}

export async function activityChart(playerId) {
  const days = Array.from({ length: DAYS }, (_v, i) => localDay(Date.now() - (DAYS - 1 - i) * DAY_MS));
  const counts = new Map(days.map((day) => [day, 0]));
  for (let from = 0; ;) {
    const events = await get(`/v1/audit/players/${encodeURIComponent(playerId)}/events`, { from, limit: PAGE });
    for (const e of events) {
      const day = e.type === 'ActionProcessed' ? localDay(e.data.timestamp) : null;
      if (counts.has(day)) counts.set(day, counts.get(day) + 1);
    }
    if (events.length < PAGE) break;
    from = events[events.length - 1].revision + 1;
  }
  const lines = [{ label: 'Actions', values: days.map((day) => counts.get(day)) }];
  return figure(
    `Actions per day, the last ${DAYS} days (this computer's dates)`,
    lineChart(days, lines, { counts: true }),
    dayTable('Actions per day', days, lines),
    null,
  );
}
