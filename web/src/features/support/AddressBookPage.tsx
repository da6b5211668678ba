import { useCallback, useEffect, useState, type FormEvent } from 'react';
import { Button } from '../../ui/Button';
import { Card, EmptyState } from '../../ui/Card';
import { formatDate } from '../../ui/dates';
import { Form, FormError, InputField, SelectField } from '../../ui/Field';
import { LoadingBlock } from '../../ui/Spinner';
import { StatusBadge } from '../../ui/StatusBadge';
import { toast } from '../../ui/toast';
import { serverMessage } from '../queues/lists';
import { SupportAdminHeader } from './SupportAdminHeader';
import { supportApi } from './supportApi';
import { NETWORKS, networkOf, type DepositAddress } from './supportTypes';
import './support.css';

export const ADDRESS_BOOK_TEXT = {
  required: 'Choose a network and enter a label and an address.',
  added: 'Address added',
  retired: 'Address retired',
  addFailed: 'The address was not added.',
  retireFailed: 'The address was not retired.',
} as const;

/**
 * /admin-deposit-addresses (admins): the deposit address book support sends from. Each address is checked by
 * the server for its network's format and checksum (its message is shown as it is); a retired address is no
 * longer offered, while the messages that carried it stay as they were.
 */
export function AddressBookPage() {
  const [addresses, setAddresses] = useState<DepositAddress[] | null>(null);
  const [loadError, setLoadError] = useState('');
  const [network, setNetwork] = useState('');
  const [label, setLabel] = useState('');
  const [address, setAddress] = useState('');
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const [retiring, setRetiring] = useState('');

  const load = useCallback(async () => {
    try {
      setAddresses(await supportApi.addresses());
      setLoadError('');
    } catch (e) {
      setLoadError(serverMessage(e) || 'The address book could not be loaded.');
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (!network || !label.trim() || !address.trim()) return setError(ADDRESS_BOOK_TEXT.required);
    setError('');
    setBusy(true);
    try {
      await supportApi.addAddress({ network, label: label.trim(), address: address.trim() });
      toast.success(ADDRESS_BOOK_TEXT.added);
      setLabel('');
      setAddress('');
      await load();
    } catch (e) {
      setError(serverMessage(e) || ADDRESS_BOOK_TEXT.addFailed);
    } finally {
      setBusy(false);
    }
  }

  async function retire(a: DepositAddress) {
    setRetiring(a._id);
    try {
      await supportApi.retireAddress(a._id);
      toast.success(ADDRESS_BOOK_TEXT.retired);
      setAddresses((list) => list?.map((x) => (x._id === a._id ? { ...x, status: 'retired' } : x)) ?? list);
    } catch (e) {
      toast.error(serverMessage(e) || ADDRESS_BOOK_TEXT.retireFailed);
    } finally {
      setRetiring('');
    }
  }

  return (
    <div className="container section address-book">
      <SupportAdminHeader page="addresses" />
      <Card aria-labelledby="add-address-title">
        <h2 className="h4" id="add-address-title">
          Add an address
        </h2>
        <Form label="Add an address" error={error} onSubmit={onSubmit}>
          <SelectField label="Network" name="network" value={network} onValue={setNetwork}>
            <option value="">Choose a network</option>
            {NETWORKS.map((n) => (
              <option key={n.value} value={n.value}>
                {n.label}
              </option>
            ))}
          </SelectField>
          <InputField
            label="Label"
            name="label"
            placeholder="e.g. USDT (ERC-20) main"
            value={label}
            onValue={setLabel}
          />
          <InputField
            label="Address"
            name="address"
            autoComplete="off"
            spellCheck={false}
            value={address}
            onValue={setAddress}
          />
          <Button type="submit" busy={busy} busyLabel="Checking…">
            Add address
          </Button>
        </Form>
      </Card>
      <Card aria-labelledby="addresses-title">
        <h2 className="h4" id="addresses-title">
          Addresses
        </h2>
        <FormError message={loadError} />
        {addresses === null && !loadError ? <LoadingBlock label="Loading addresses…" /> : null}
        {addresses?.length === 0 ? <EmptyState title="No addresses yet." /> : null}
        {addresses && addresses.length > 0 ? (
          <div className="table-scroll">
            <table className="address-book__table" aria-label="Deposit addresses">
              <thead>
                <tr>
                  <th scope="col">Label</th>
                  <th scope="col">Network</th>
                  <th scope="col">Address</th>
                  <th scope="col">Status</th>
                  <th scope="col">
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {addresses.map((a) => (
                  <tr key={a._id}>
                    <td>
                      {a.label}
                      <br />
                      <span className="muted small">{formatDate(a.createdAt)}</span>
                    </td>
                    <td>{networkOf(a.network).label}</td>
                    <td>
                      <code>{a.address}</code>
                    </td>
                    <td>
                      <StatusBadge
                        status={a.status}
                        tone={a.status === 'active' ? 'success' : 'neutral'}
                        label={a.status === 'active' ? 'Active' : 'Retired'}
                      />
                    </td>
                    <td>
                      {a.status === 'active' ? (
                        <Button
                          size="sm"
                          variant="secondary"
                          busy={retiring === a._id}
                          busyLabel="Retiring…"
                          aria-label={`Retire ${a.label}`}
                          onClick={() => void retire(a)}
                        >
                          Retire
                        </Button>
                      ) : null}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        ) : null}
      </Card>
    </div>
  );
}
