/**
 * The version of what the projectors write. Read models kept from an earlier version (in MongoDB,
 * or the embedded read models file) are dropped and rebuilt at start: bump it whenever a
 * projector changes the documents it writes.
 */
// 3: the players read model (search by username); rank sets with their ranks, badges with their rank set;
// the analytics read model; leaderboard scores in an ordered index (no score counts).
// 4: leaderboards scoped by a player attribute (the value in the period key), boards' scope and aggregate.
// 5: the players read model follows renames (PlayerUpdated).
// 6: analytics count every player event's effects (streak milestones, missions, recomputes, ...).
// 7: the catalog's streaks, missions and currencies in views of their own; actions' caps, boards' period and metric.
// 8: what segments read of each player (attributes, points, level, badges), counted per segment.
// 9: the segment of badges, triggers, streaks and missions in their admin views.
// 10: segment members count each badge's awards instead of listing them, and skip events that move nothing they read.
// 11: experiments: their admin views, and what their results count of each player who joined one.
// 12: leagues (members and tiers of each period); league prizes' points on points boards.
export const PROJECTIONS_VERSION = 12;
