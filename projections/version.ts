/**
 * The version of what the projectors write. Read models kept from an earlier version (in MongoDB,
 * or the embedded read models file) are dropped and rebuilt at start: bump it whenever a
 * projector changes the documents it writes.
 */
export const PROJECTIONS_VERSION = 4;
