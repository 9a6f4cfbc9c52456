/**
 * The three roles of a deployment, and which one serves each API path. The ingress routes by
 * this same table (deploy/ingress.conf, checked against it by a test).
 */
export type Role = 'all' | 'command' | 'read' | 'projector';
export const ROLES: readonly Role[] = ['all', 'command', 'read', 'projector'];

/** Paths that change state; every other path is a read. */
export const COMMAND_PATHS: readonly string[] = [
  '/v1/action/process',
  '/v1/action/delete',
  '/v1/player/create',
  '/v1/player/update',
  '/v1/store/buy',
  '/v1/store/complete-transaction',
  '/v1/store/cancel-transaction',
  '/v1/store/refund-transaction',
  '/v1/chest/open',
  '/v1/powerup/activate',
  '/v1/powerup/deactivate',
  // A recompute's progress is known to the process that runs it.
  '/v1/admin/recompute',
  '/v1/admin/recompute/:recomputeUid',
  // Wakes the webhook's job, which runs where jobs run.
  '/v1/admin/webhooks/redeliver',
  // Puts failed jobs back where jobs run.
  '/v1/admin/jobs/retry',
  '/v1/admin/players/erase',
  // A publication is decided where commands are; every process follows it within 2 s.
  '/v1/admin/catalog/publish',
  '/v1/admin/catalog/revert',
];

/** The role of a split deployment that serves the route at `path`. */
export function servedBy(path: string): 'command' | 'read' {
  return COMMAND_PATHS.includes(path) ? 'command' : 'read';
}

/** Whether a process of `role` serves the route at `path`. */
export function serves(role: Role, path: string): boolean {
  return role === 'all' || servedBy(path) === role;
}

/**
 * Default HTTP port of each role (PORT overrides), so that roles started side by side on one
 * machine do not collide; in containers each role is given PORT=8080.
 */
export const DEFAULT_PORTS: Readonly<Record<Role, number>> = { all: 8080, command: 8081, read: 8082, projector: 8083 };
