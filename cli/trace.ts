/** `trace`: the causal chain of an action, a provision or a chest opening, readable or as JSON. */
import {
  traceChestOpening,
  traceProvision,
  traceReference,
  type ActionTrace,
  type CausalChain,
  type ChestOpeningTrace,
  type ProvisionTrace,
  type Rules,
  type TakenBack,
} from '../read-api/audit/trace';
import { canonicalPlayerId } from '../domain/ids';
import type { EventStore } from '../shared/adapters/event-store/port';
import type { Grant } from '../domain/events/common';
import { iso, UsageError, writeLine } from './output';

export interface TraceOptions {
  reference?: string;
  provision?: string;
  /** A chest opening, with the player it is on. */
  opening?: string;
  player?: string;
  json: boolean;
}

/** `trace`: the causal chain of an action, a provision or a chest opening. Exit 1 when there is no such subject. */
export async function showTrace(events: EventStore, options: TraceOptions): Promise<number> {
  const { reference, provision, opening } = options;
  if ([reference, provision, opening].filter((given) => given !== undefined).length !== 1)
    throw new UsageError(
      'trace: give exactly one of --reference <referenceId>, --provision <provisionUid> or --opening <openingUid> --player <id>',
    );
  if ((opening === undefined) !== (options.player === undefined))
    throw new UsageError('trace: give --player with --opening, and only with it');
  let trace: ActionTrace | ProvisionTrace | ChestOpeningTrace | null;
  let missing: string;
  if (reference !== undefined) {
    trace = await traceReference(events, reference);
    missing = `no action with referenceId ${reference}`;
  } else if (provision !== undefined) {
    trace = await traceProvision(events, provision.toLowerCase());
    missing = `no provision ${provision}`;
  } else {
    const playerId = canonicalPlayerId(options.player);
    if (!playerId) throw new UsageError(`trace: --player must be a UUID, got "${options.player}"`);
    trace = await traceChestOpening(events, playerId, opening!.toLowerCase());
    missing = `no chest opening ${opening} of player ${playerId}`;
  }
  if (!trace) {
    process.stderr.write(`${missing}\n`);
    return 1;
  }
  if (options.json) {
    await writeLine(JSON.stringify(trace, null, 2));
    return 0;
  }
  await writeLine(
    'referenceType' in trace
      ? provisionHeader(trace)
      : 'openingUid' in trace
        ? openingHeader(trace)
        : actionHeader(trace),
  );
  for (const line of trace.chains.flatMap(chainLines)) await writeLine(line);
  return 0;
}

function actionHeader(t: ActionTrace): string {
  const flags = [
    t.reversed ? 'reversed' : 'processed',
    ...(t.provisionUid ? [`cost provision ${t.provisionUid}`] : []),
  ];
  return `Action ${t.actionName}, reference ${t.referenceId}, player ${t.playerId}: ${flags.join(', ')}`;
}

function provisionHeader(t: ProvisionTrace): string {
  const of = t.referenceType === 'Store' ? `bundle ${t.bundleUid}` : `cost of action ${t.referenceId ?? '?'}`;
  return `Provision ${t.provisionUid} (${t.referenceType}, ${of}), player ${t.playerId}: ${t.status}`;
}

function openingHeader(t: ChestOpeningTrace): string {
  return `Chest opening ${t.openingUid} of ${t.chestDeliverableUid} "${t.chestLabel}", player ${t.playerId}`;
}

function chainLines(chain: CausalChain, index: number): string[] {
  const out = [
    '',
    `${index + 1}. ${chain.cause}: request ${chain.correlationId} by key "${chain.keyName}", catalog v${chain.catalogVersion}${chain.catalogPublishedBy ? ` (published by ${chain.catalogPublishedBy})` : ''}, ${iso(chain.time)}`,
    '   events:',
    ...chain.events.map((e) => `     #${e.position}  ${e.stream}@${e.revision}  ${e.type}  ${e.summary}`),
  ];
  if (chain.rules) out.push(...rulesLines(chain.rules));
  for (const r of chain.recomputed ?? [])
    out.push(
      `   re-decided ${r.referenceId}: ${r.pointsBefore} -> ${r.pointsAfter} points`,
      ...rulesLines(r.rules).map((line) => `  ${line}`),
    );
  if (chain.takenBack) out.push(...takenBackLines(chain.takenBack));
  out.push(chain.balanceChanges.length ? '   balance changes:' : '   balance changes: none');
  for (const c of chain.balanceChanges)
    out.push(
      `     #${c.position}  ${c.type}  ${c.balance}: ${c.before} ${c.change < 0 ? '-' : '+'} ${Math.abs(c.change)} = ${c.after}`,
    );
  return out;
}

const grants = (list: Grant[]): string =>
  list.length ? `, grants ${list.map((g) => `${g.amount} ${g.uid}`).join(', ')}` : '';

function rulesLines(rules: Rules): string[] {
  const a = rules.action;
  return [
    `   rules (catalog v${rules.catalogVersion}):`,
    `     action ${a.name} (${a.uid}): ${a.points} points x${a.multiplier}${grants(a.grants)}`,
    ...rules.awards.flatMap((w) => [
      `     ${w.kind} ${w.uid} "${w.label}" ${w.ruleType}${w.rank ? ` rank ${w.rank.rank} "${w.rank.label}"` : ''}${w.limited ? ' (limited)' : ''}: ${w.points} points${grants(w.grants)}`,
      ...w.challenge.map(
        (actions, i) =>
          `       condition ${i + 1} made of: ${actions.map((a) => a.referenceId).join(', ') || 'nothing'}`,
      ),
    ]),
    ...rules.levels.map((l) => `     level ${l.level} ${l.uid} "${l.label}" (target ${l.target})${grants(l.grants)}`),
    ...rules.streaks.flatMap((s) => [
      `     streak ${s.uid} "${s.label}": run of ${s.length}${s.freezesUsed ? `, ${s.freezesUsed} freezes used` : ''}`,
      ...s.milestones.map((m) => `       milestone ${m.length}: ${m.points} points${grants(m.grants)}`),
    ]),
    ...rules.missions.map(
      (m) =>
        `     mission ${m.uid} "${m.label}": steps met ${m.steps.join(', ')}, completed ${m.completedSteps.join(', ') || 'none'}${m.completion ? `; completed the mission: ${m.completion.points} points${grants(m.completion.grants)}` : ''}`,
    ),
    ...rules.caps.map(
      (c) => `     cut by the ${c.period} ${c.kind} cap of ${c.limit}${c.deliverable ? ` ${c.deliverable}` : ''}`,
    ),
    ...rules.lots.map((l) => `     lot ${l.amount} ${l.deliverableUid}, expires ${iso(l.expiresAt)}`),
  ];
}

function takenBackLines(taken: TakenBack): string[] {
  return [
    '   taken back:',
    ...taken.awards.map((a) => `     ${a.kind} ${a.uid} of ${a.awardedBy}: ${a.points} points${grants(a.grants)}`),
    ...taken.milestones.map(
      (m) =>
        `     streak ${m.streakUid} milestone ${m.length} of ${m.awardedBy}: ${m.points} points${grants(m.grants)}`,
    ),
    ...taken.missions.map(
      (m) => `     mission ${m.missionUid} completion of ${m.awardedBy}: ${m.points} points${grants(m.grants)}`,
    ),
    ...taken.lotsExpired.map(
      (l) => `     not given back: lot ${l.amount} ${l.deliverableUid}, expired ${iso(l.expiresAt)}`,
    ),
  ];
}
