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
  /**
   * Documents that differed but that writes during the check kept changing, so they could not be
   * compared at one position: neither listed nor known equal. A later verify checks them again.
   */
  unsettled: number;
  /** The log position replayed to: each difference listed held there, writes since aside. */
  position: number;
  eventsReplayed: number;
  collections: string[];
  /** How long the check took, replay included. */
  ms: number;
}
