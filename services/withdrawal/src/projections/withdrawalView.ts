/**
 * Read models of the withdrawal service, written in the same transaction as the events they come
 * from. Pure: `withdrawalView.project(doc, event)` turns the current document and one stored event into the
 * next document; the queries below read them.
 *
 * | collection  | id           | from                                                   |
 * |-------------|--------------|--------------------------------------------------------|
 * | withdrawals | withdrawalId | the withdrawal's own events (state + queue fields)     |
 * | users       | userId       | identity's UserRegistered / ProfileUpdated (directory) |
 *
 * A withdrawal's document is a held-request document (@meridian/held-request
 * projections/requestView.ts): its state, and `sync`, the ledger call it still owes
 * (hold, capture, release), a projection of the stream like every other field. The process manager
 * reads its to-do list here and writes nothing but events, so every collection can be dropped and
 * rebuilt from the events alone (the withdrawals from the service's own log, the users directory by
 * replaying identity's topic, which is kept forever): projections/rebuild.int.spec.ts does exactly that.
 */
import { type RequestDoc, requestView } from '@meridian/held-request/projections/requestView';
import { type ExistingWithdrawal, type LedgerCallOwed, WITHDRAWAL_KIND } from '../domain/withdrawal.js';

export type WithdrawalDoc = RequestDoc<ExistingWithdrawal, LedgerCallOwed>;

export const withdrawalView = requestView({
  ...WITHDRAWAL_KIND,
  collection: 'withdrawals',
  dateField: 'requestDate',
});
