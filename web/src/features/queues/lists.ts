/** Answers are either a bare list or an object holding it under `key` (spec §7 names the key). */
export function listFrom<T>(data: unknown, ...keys: string[]): T[] {
  if (Array.isArray(data)) return data as T[];
  if (data && typeof data === 'object') {
    for (const key of keys) {
      const v = (data as Record<string, unknown>)[key];
      if (Array.isArray(v)) return v as T[];
    }
  }
  return [];
}

/** A single record, bare or under one of `keys`. */
export function recordFrom<T>(data: unknown, ...keys: string[]): T | null {
  if (!data || typeof data !== 'object' || Array.isArray(data)) return null;
  for (const key of keys) {
    const v = (data as Record<string, unknown>)[key];
    if (v && typeof v === 'object' && !Array.isArray(v)) return v as T;
  }
  return data as T;
}

export function messageFrom(data: unknown): string {
  const m = (data as { message?: unknown } | null | undefined)?.message;
  return typeof m === 'string' ? m : '';
}

/** The server's message field of a failed call, if any. */
export function serverMessage(error: unknown): string {
  return messageFrom((error as { response?: { data?: unknown } } | null | undefined)?.response?.data);
}

/** A person on a money record: an object with name and email in lists, sometimes a single value. */
export interface Person {
  _id?: string;
  name?: string;
  email?: string;
  balance?: number;
}

export function personOf(user: unknown): { name: string; email: string } {
  if (user && typeof user === 'object') {
    const p = user as Person;
    return { name: p.name ?? '', email: p.email ?? '' };
  }
  return { name: typeof user === 'string' ? user : '', email: '' };
}

/**
 * Who initiated a money record when it was not its owner (an admin acting as the user), as the queues
 * show it: a person (name and email) or an id; '' when the owner did.
 */
export function initiatorText(initiatedBy: unknown): string {
  if (!initiatedBy) return '';
  const { name, email } = personOf(initiatedBy);
  if (typeof initiatedBy === 'object' && !name && !email) return (initiatedBy as Person)._id ?? '';
  return name && email ? `${name} (${email})` : name || email;
}
