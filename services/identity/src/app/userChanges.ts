/**
 * Gateways cache a session's principal together with its user (auth.ts, sessionCache.ts) and answer
 * getUser from it. So whatever changes a user's view (a command of this service, a fact of another
 * service such as a balance or the KYC status) tells them, AFTER the transaction committed: a gateway
 * then forgets that user's cached sessions, and the next request reads the committed view. A gateway's
 * fill racing the change is refused by its ticket (sessionCache.ts), so no stale view outlives the
 * announcement.
 */
import type { ServiceStore, StoreTx } from '@meridian/platform/ports/serviceStore';
import { USERS } from '../projections/userView.js';

/** `store`, announcing every user whose view a committed transaction wrote or deleted. */
export function announcingUserChanges(
  store: ServiceStore,
  announce: (userId: string) => Promise<void>,
): ServiceStore {
  const transaction = async <T>(fn: (tx: StoreTx) => Promise<T>): Promise<T> => {
    const touched = new Set<string>();
    const result = await store.transaction((tx) => fn(recording(tx, touched)));
    for (const userId of touched) await announce(userId);
    return result;
  };
  return new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'transaction') return transaction;
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function recording(tx: StoreTx, touched: Set<string>): StoreTx {
  return new Proxy(tx, {
    get(target, prop, receiver) {
      if (prop === 'put')
        return <T extends object>(collection: string, id: string, doc: T) => {
          if (collection === USERS) touched.add(id);
          return target.put(collection, id, doc);
        };
      if (prop === 'delete')
        return (collection: string, id: string) => {
          if (collection === USERS) touched.add(id);
          return target.delete(collection, id);
        };
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}
