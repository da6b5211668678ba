/**
 * Use cases of the deposit address book (admins only): list, add (network + label + address, checked by
 * the network's format and checksum), retire.
 */
import { requireAdmin } from '@meridian/platform/app/requestContext';
import { eventMeta } from '@meridian/platform/app/requestContext';
import { notFound } from '@meridian/platform/eventSourcing/errors';
import { BOOK_MESSAGES } from '../domain/addressBook.js';
import { COLLECTIONS, type AddressDoc } from '../projections/supportViews.js';
import { type SupportContext, executeAddress } from './context.js';
import type { SupportCaller } from './conversations.js';

export type AddressView = Omit<AddressDoc, 'id'>;

const view = ({ id: _id, ...doc }: AddressDoc): AddressView => doc;

/** Admin: the whole book, active first, newest first within each. */
export async function listAddresses(ctx: SupportContext, caller: SupportCaller): Promise<AddressView[]> {
  requireAdmin(caller);
  const docs = await ctx.store.find<AddressDoc>(COLLECTIONS.addresses, {
    orderBy: { field: 'createdAt', direction: 'desc' },
  });
  return [...docs.filter((d) => d.status === 'active'), ...docs.filter((d) => d.status !== 'active')].map(
    view,
  );
}

async function byId(ctx: SupportContext, addressId: string): Promise<AddressView> {
  const doc = await ctx.store.get<AddressDoc>(COLLECTIONS.addresses, addressId);
  if (!doc) throw notFound(BOOK_MESSAGES.notFound);
  return view(doc);
}

export async function addAddress(
  ctx: SupportContext,
  caller: SupportCaller,
  input: { network: string; label: string; address: string },
): Promise<AddressView> {
  const admin = requireAdmin(caller);
  const addressId = ctx.newId();
  await executeAddress(
    ctx,
    addressId,
    {
      type: 'AddDepositAddress',
      addressId,
      network: String(input.network ?? ''),
      label: String(input.label ?? ''),
      address: String(input.address ?? ''),
      adminId: admin.userId,
      adminRole: admin.role,
      now: ctx.clock(),
    },
    eventMeta(caller.correlationId, caller),
  );
  return byId(ctx, addressId);
}

export async function retireAddress(
  ctx: SupportContext,
  caller: SupportCaller,
  addressId: string,
): Promise<AddressView> {
  const admin = requireAdmin(caller);
  await executeAddress(
    ctx,
    addressId || '-',
    {
      type: 'RetireDepositAddress',
      addressId,
      adminId: admin.userId,
      adminRole: admin.role,
      now: ctx.clock(),
    },
    eventMeta(caller.correlationId, caller),
  );
  return byId(ctx, addressId);
}
