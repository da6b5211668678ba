import { randomUUID } from 'node:crypto';

/**
 * A UUID version 7 (RFC 9562): the current time in milliseconds, then 74 random bits. Ids made later sort
 * after ids made earlier (to the millisecond), so an index keyed by them takes each new one at its end,
 * where a random (version 4) id lands on any page of it: a commit of many appends or postings then
 * writes a few pages of the index instead of one per row. As unique as a version 4 id within a
 * millisecond (74 random bits). Built on randomUUID (its buffered randomness), the time in front.
 */
export function timeOrderedId(): string {
  const time = Date.now().toString(16).padStart(12, '0');
  // xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx: the first 48 bits become the time, the version nibble 7
  return `${time.slice(0, 8)}-${time.slice(8)}-7${randomUUID().slice(15)}`;
}
