import { describe, expect, it } from 'vitest';
import { DeciderSpecification, domainError } from '@meridian/platform/testing/deciderSpec';
import {
  BOOK_MESSAGES,
  addressBookDecider,
  assertSendable,
  evolve,
  initialState,
  type AddressCommand,
  type AddressEvent,
} from './addressBook.js';

const spec = DeciderSpecification.for(addressBookDecider);
const t0 = new Date('2026-03-01T09:00:00.000Z');
const TRON = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';

const add = (over: Partial<Extract<AddressCommand, { type: 'AddDepositAddress' }>> = {}): AddressCommand => ({
  type: 'AddDepositAddress',
  addressId: 'a1',
  network: 'tron',
  label: '  USDT   (TRC-20) ',
  address: ` ${TRON} `,
  adminId: 'admin1',
  adminRole: 'admin',
  now: t0,
  ...over,
});
const added: AddressEvent = {
  type: 'DepositAddressAdded',
  data: {
    addressId: 'a1',
    network: 'tron',
    label: 'USDT (TRC-20)',
    address: TRON,
    createdBy: 'admin1',
    createdAt: t0.toISOString(),
  },
};
const retire: AddressCommand = {
  type: 'RetireDepositAddress',
  addressId: 'a1',
  adminId: 'admin1',
  adminRole: 'admin',
  now: t0,
};
const retired: AddressEvent = {
  type: 'DepositAddressRetired',
  data: { addressId: 'a1', retiredBy: 'admin1', retiredAt: t0.toISOString() },
};

describe('DepositAddress decider (the address book)', () => {
  it('adds an address checked for its network, label and address trimmed', () => {
    spec.given([]).when(add()).then([added]);
  });

  it('refuses an address that fails its network check, and an unknown network', () => {
    spec
      .given([])
      .when(add({ address: TRON.slice(0, -1) + (TRON.endsWith('t') ? 'u' : 't') }))
      .thenThrows(domainError('invalid'), /TRON .* checksum/);
    spec
      .given([])
      .when(add({ network: 'dogecoin' }))
      .thenThrows(domainError('invalid'), /network/);
    spec
      .given([])
      .when(add({ network: 'ethereum' }))
      .thenThrows(domainError('invalid'), /Ethereum|ERC/);
  });

  it('refuses an empty or overlong label', () => {
    spec
      .given([])
      .when(add({ label: '  ' }))
      .thenThrows(domainError('invalid'), BOOK_MESSAGES.labelRequired);
    spec
      .given([])
      .when(add({ label: 'x'.repeat(81) }))
      .thenThrows(domainError('invalid'), BOOK_MESSAGES.labelTooLong);
  });

  it('admins only', () => {
    spec
      .given([])
      .when(add({ adminRole: 'subscriber' }))
      .thenThrows(domainError('forbidden'), BOOK_MESSAGES.notAdmin);
  });

  it('retires once; an unknown address is not found', () => {
    spec.given([added]).when(retire).then([retired]);
    spec
      .given([added, retired])
      .when(retire)
      .thenThrows(domainError('conflict'), BOOK_MESSAGES.alreadyRetired);
    spec.given([]).when(retire).thenThrows(domainError('not_found'), BOOK_MESSAGES.notFound);
  });

  it('a retired address cannot be sent', () => {
    const active = evolve(initialState(), added);
    expect(() => assertSendable(active)).not.toThrow();
    expect(() => assertSendable(evolve(active, retired))).toThrow(BOOK_MESSAGES.retired);
    expect(() => assertSendable(initialState())).toThrow(BOOK_MESSAGES.notFound);
  });
});
