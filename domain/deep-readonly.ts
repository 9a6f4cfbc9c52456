/**
 * A value seen through a read-only lens all the way down: what a decider gets of its state, so the
 * compiler, not a comment, holds that deciding never changes the state it decides on.
 */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends ReadonlyMap<infer K, infer V>
    ? ReadonlyMap<DeepReadonly<K>, DeepReadonly<V>>
    : T extends ReadonlySet<infer V>
      ? ReadonlySet<DeepReadonly<V>>
      : T extends object
        ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
        : T;

/**
 * A deep copy of a read-only value, for a new owner that may change it: where a decider puts data
 * of the state into a new event. The copy is fresh, which is what makes its mutable type true.
 */
export const mutableCopy = <T>(value: DeepReadonly<T>): T => structuredClone(value) as T;
