/** The TypeScript client of the gamification engine (README.md of this package). */
export {
  createClient,
  type BodyOf,
  type CallOptions,
  type ClientOptions,
  type DataOf,
  type GamificationClient,
  type OperationId,
  type Operations,
  type ParamsOf,
} from './client.ts';
export { GamificationError } from './errors.ts';
export type { FeedEvent, FeedFilter, SubscribeOptions, Subscription } from './feed.ts';
export type { RetryPolicy } from './retry.ts';
export { verifyWebhook, WebhookVerificationError, type WebhookDelivery } from './webhook.ts';
export type { components, operations, paths } from './generated/openapi.ts';
