/**
 * The three roles of a deployment, and which one serves each api.md path. The ingress routes by
 * this same table (deploy/ingress.conf, checked against it by a test).
 */
export type Role = 'all' | 'command' | 'read' | 'projector';
export const ROLES: readonly Role[] = ['all', 'command', 'read', 'projector'];

/** Paths that change state; every other path is a read. */
export const COMMAND_PATHS: readonly string[] = [
  '/v1/action/process',
  '/v1/action/delete',
  '/v1/player/create',
  '/v1/store/buy',
  '/v1/store/complete-transaction',
  '/v1/store/cancel-transaction',
  '/v1/store/refund-transaction',
  '/v1/chest/open',
  '/v1/powerup/activate',
  '/v1/powerup/deactivate',
];

/** Whether a process of `role` serves the route at `path`. */
export function serves(role: Role, path: string): boolean {
  if (role === 'all') return true;
  if (role === 'projector') return false;
  return COMMAND_PATHS.includes(path) === (role === 'command');
}
