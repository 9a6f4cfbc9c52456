/** What a check of the live read models against a fresh replay of the log found. */
export interface Difference {
  collection: string;
  _id: string;
  /** Dotted path of the field that differs; empty when the document is missing on one side. */
  path: string;
  /** undefined (absent from JSON) when the field or document is missing on that side. */
  live: unknown;
  rebuilt: unknown;
}

export interface Verification {
  /** In _id order within each collection's rebuilt documents, then documents only the live side has. */
  differences: Difference[];
  /** More differences than listed: the check stopped at the first MAX_DIFFERENCES. */
  truncated: boolean;
  eventsReplayed: number;
  collections: string[];
  /** How long the check took, replay included. */
  ms: number;
}
