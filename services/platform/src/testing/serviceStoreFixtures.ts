import { randomUUID } from 'node:crypto';
import type { EventMeta } from '../eventSourcing/types.js';
import type { ServiceStore } from '../ports/serviceStore.js';

/** Opens a fresh, empty store that the suite closes after the case. */
export type FreshStore = () => Promise<ServiceStore>;

export const meta = (over: Partial<EventMeta> = {}): EventMeta => ({ correlationId: randomUUID(), ...over });
export const ev = (type: string, data: unknown = {}) => ({ type, data });
