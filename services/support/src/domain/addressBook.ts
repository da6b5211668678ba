/**
 * DepositAddress: one entry of the address book admins manage (stream `support-address-<addressId>`):
 * a network, a label and an address checked for that network's format and checksum
 * (depositAddress.ts), active until retired. A retired address is never sent again (its old messages
 * stay as they were). Time, ids and the caller come in the command; nothing here touches I/O.
 */
import { conflict, forbidden, invalid, notFound } from '@meridian/platform/eventSourcing/errors';
import type { Decider } from '@meridian/platform/eventSourcing/types';
import { checkDepositAddress, isDepositNetwork, type DepositNetwork } from './depositAddress.js';

export const MAX_LABEL_LENGTH = 80;

export const BOOK_MESSAGES = {
  notAdmin: 'Not authorized as an admin',
  labelRequired: 'Please enter a label',
  labelTooLong: `The label must be at most ${MAX_LABEL_LENGTH} characters`,
  exists: 'This address is already in the address book',
  notFound: 'Deposit address not found',
  alreadyRetired: 'This address is already retired',
  retired: 'This address is retired: choose an active one',
} as const;

export type AddressStatus = 'active' | 'retired';

export const toAddressStreamId = (addressId: string): string => `support-address-${addressId}`;

export type AddressEvent =
  | {
      type: 'DepositAddressAdded';
      data: {
        addressId: string;
        network: DepositNetwork;
        label: string;
        address: string;
        createdBy: string;
        createdAt: string;
      };
    }
  | { type: 'DepositAddressRetired'; data: { addressId: string; retiredBy: string; retiredAt: string } };

export type AddressCommand =
  | {
      type: 'AddDepositAddress';
      addressId: string;
      network: string;
      label: string;
      address: string;
      adminId: string;
      adminRole: string;
      now: Date;
    }
  | { type: 'RetireDepositAddress'; addressId: string; adminId: string; adminRole: string; now: Date };

export interface AddressState {
  exists: boolean;
  addressId: string;
  network: DepositNetwork | '';
  label: string;
  address: string;
  status: AddressStatus;
}

export const initialState = (): AddressState => ({
  exists: false,
  addressId: '',
  network: '',
  label: '',
  address: '',
  status: 'active',
});

export function evolve(state: AddressState, event: AddressEvent): AddressState {
  switch (event.type) {
    case 'DepositAddressAdded':
      return {
        exists: true,
        addressId: event.data.addressId,
        network: event.data.network,
        label: event.data.label,
        address: event.data.address,
        status: 'active',
      };
    case 'DepositAddressRetired':
      return { ...state, status: 'retired' };
    default: {
      const _exhaustive: never = event;
      return state;
    }
  }
}

/** The label as kept: whitespace collapsed, 1..MAX_LABEL_LENGTH characters. */
export function checkLabel(label: string): string {
  const text = (typeof label === 'string' ? label : '').replace(/\s+/g, ' ').trim();
  if (!text) throw invalid(BOOK_MESSAGES.labelRequired);
  if (text.length > MAX_LABEL_LENGTH) throw invalid(BOOK_MESSAGES.labelTooLong);
  return text;
}

/** An address that may be sent to a person: it exists and is active. */
export function assertSendable(state: AddressState): void {
  if (!state.exists) throw notFound(BOOK_MESSAGES.notFound, 'ADDRESS_NOT_FOUND');
  if (state.status === 'retired') throw conflict(BOOK_MESSAGES.retired, 'ADDRESS_RETIRED');
}

export function decide(command: AddressCommand, state: AddressState): AddressEvent[] {
  if (command.adminRole !== 'admin') throw forbidden(BOOK_MESSAGES.notAdmin);
  const now = command.now.toISOString();
  switch (command.type) {
    case 'AddDepositAddress': {
      if (state.exists) throw conflict(BOOK_MESSAGES.exists);
      const checked = checkDepositAddress(command.network, command.address);
      if (!checked.ok || !isDepositNetwork(command.network))
        throw invalid(checked.ok ? 'Unknown network' : checked.message, 'ADDRESS_INVALID');
      const label = checkLabel(command.label);
      return [
        {
          type: 'DepositAddressAdded',
          data: {
            addressId: command.addressId,
            network: command.network,
            label,
            address: checked.address,
            createdBy: command.adminId,
            createdAt: now,
          },
        },
      ];
    }
    case 'RetireDepositAddress':
      if (!state.exists) throw notFound(BOOK_MESSAGES.notFound, 'ADDRESS_NOT_FOUND');
      if (state.status === 'retired') throw conflict(BOOK_MESSAGES.alreadyRetired);
      return [
        {
          type: 'DepositAddressRetired',
          data: { addressId: command.addressId, retiredBy: command.adminId, retiredAt: now },
        },
      ];
    default: {
      const _exhaustive: never = command;
      throw invalid('Unknown command');
    }
  }
}

export const addressBookDecider: Decider<AddressCommand, AddressEvent, AddressState> = {
  decide,
  evolve,
  initialState,
};
