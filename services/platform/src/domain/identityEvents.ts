/**
 * Identity's integration events about a user's account (topic meridian.identity.events) as the services
 * that keep a copy of their users read them: each one's data is its message of
 * proto/meridian/identity/v1/events.proto, read with the message's `fromJSON` (the proto JSON mapping the bus
 * applies when it encodes the event), so every field is there: a missing string is '', a missing list [].
 * Values are taken as they arrive (names and emails stay sealed `pd1.…` strings). Pure: domain/ code may
 * import it.
 */
import * as identityMessages from '@meridian/proto/meridian/identity/v1/events';

type Messages = typeof identityMessages;
/** What a generated message's `fromJSON` reads: the message. */
type MessageOf<Fns> = Fns extends { fromJSON(object: unknown): infer M } ? M : never;
/** The names of identity's event messages (events.proto), e.g. 'UserRegistered'. */
export type IdentityMessageName = {
  [K in keyof Messages]: MessageOf<Messages[K]> extends never ? never : K;
}[keyof Messages];

/** An identity event of one of the types T, its data typed by that type's proto message. */
export type IdentityEventOf<T extends IdentityMessageName> = {
  [K in T]: { type: K; data: MessageOf<Messages[K]> };
}[T];

/** An identity event a user directory follows. */
export type IdentityEvent = IdentityEventOf<
  'UserRegistered' | 'RoleChanged' | 'ProfileUpdated' | 'UserDeleted'
>;

export type IdentityEventType = IdentityEvent['type'];

function typed(event: { type: string; data?: unknown }): IdentityEvent | null {
  // an event without data reads as one with every field missing
  const json: unknown = event.data ?? {};
  switch (event.type) {
    case 'UserRegistered':
      return { type: 'UserRegistered', data: identityMessages.UserRegistered.fromJSON(json) };
    case 'RoleChanged':
      return { type: 'RoleChanged', data: identityMessages.RoleChanged.fromJSON(json) };
    case 'ProfileUpdated':
      return { type: 'ProfileUpdated', data: identityMessages.ProfileUpdated.fromJSON(json) };
    case 'UserDeleted':
      return { type: 'UserDeleted', data: identityMessages.UserDeleted.fromJSON(json) };
    default:
      return null;
  }
}

const isOneOf = <T extends IdentityEventType>(
  event: IdentityEvent,
  types: readonly T[],
): event is Extract<IdentityEvent, { type: T }> => types.some((t) => t === event.type);

/**
 * The event typed by its message when its type is one of `types` (a consumer's own list, so a switch on the
 * answer's type is exhaustive over exactly those), else null.
 */
export function readIdentityEvent<T extends IdentityEventType>(
  event: { type: string; data?: unknown },
  types: readonly T[],
): Extract<IdentityEvent, { type: T }> | null {
  const typedEvent = typed(event);
  return typedEvent && isOneOf(typedEvent, types) ? typedEvent : null;
}
