/**
 * Identity's integration events about a user's account (topic meridian.identity.events) as the services
 * that keep a copy of their users read them: each one's data is its message of
 * proto/meridian/identity/v1/events.proto, read with the message's `fromJSON` (the proto JSON mapping the bus
 * applies when it encodes the event), so every field is there: a missing string is '', a missing list [].
 * Values are taken as they arrive (names and emails stay sealed `pd1.…` strings). Pure: domain/ code may
 * import it.
 */
import {
  ProfileUpdated,
  RoleChanged,
  UserDeleted,
  UserRegistered,
} from '@meridian/proto/meridian/identity/v1/events';

/** An identity event a user directory follows, typed by its proto message. */
export type IdentityEvent =
  | { type: 'UserRegistered'; data: UserRegistered }
  | { type: 'RoleChanged'; data: RoleChanged }
  | { type: 'ProfileUpdated'; data: ProfileUpdated }
  | { type: 'UserDeleted'; data: UserDeleted };

export type IdentityEventType = IdentityEvent['type'];

/** The members of IdentityEvent whose type is one of T. */
export type IdentityEventOf<T extends IdentityEventType> = Extract<IdentityEvent, { type: T }>;

function typed(event: { type: string; data?: unknown }): IdentityEvent | null {
  // an event without data reads as one with every field missing
  const json: unknown = event.data ?? {};
  switch (event.type) {
    case 'UserRegistered':
      return { type: 'UserRegistered', data: UserRegistered.fromJSON(json) };
    case 'RoleChanged':
      return { type: 'RoleChanged', data: RoleChanged.fromJSON(json) };
    case 'ProfileUpdated':
      return { type: 'ProfileUpdated', data: ProfileUpdated.fromJSON(json) };
    case 'UserDeleted':
      return { type: 'UserDeleted', data: UserDeleted.fromJSON(json) };
    default:
      return null;
  }
}

const isOneOf = <T extends IdentityEventType>(
  event: IdentityEvent,
  types: readonly T[],
): event is IdentityEventOf<T> => types.some((t) => t === event.type);

/**
 * The event typed by its message when its type is one of `types` (a consumer's own list, so a switch on the
 * answer's type is exhaustive over exactly those), else null.
 */
export function readIdentityEvent<T extends IdentityEventType>(
  event: { type: string; data?: unknown },
  types: readonly T[],
): IdentityEventOf<T> | null {
  const typedEvent = typed(event);
  return typedEvent && isOneOf(typedEvent, types) ? typedEvent : null;
}
