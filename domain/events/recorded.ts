/** An event as the log holds it: written with its metadata, read back with its place in the log. */

/** Metadata carried by every domain event: who asked, why, under which catalog version. */
export interface EventMetadata {
  correlationId: string;
  causationId: string;
  keyName: string;
  catalogVersion: number;
  [extra: string]: unknown;
}

export interface NewEvent<Type extends string = string, Data = unknown> {
  /** A uuid. Re-sending the same ids makes a retried append idempotent. */
  id: string;
  type: Type;
  data: Data;
  metadata: EventMetadata;
}

export interface RecordedEvent<Type extends string = string, Data = unknown> extends NewEvent<Type, Data> {
  streamName: string;
  /** 0-based revision of the event in its stream. */
  revision: number;
  /** Position in the global log; strictly increasing, not necessarily contiguous. */
  position: number;
  /** Unix ms when the store recorded it. */
  createdAt: number;
}
