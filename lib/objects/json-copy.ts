/** A deep copy through JSON: the emitted objects are JSON data by construction. */
export function jsonCopy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}
