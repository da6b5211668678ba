import { screen, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { fakeApi } from '../../test/fakeApi';
import { aUser, loggedInAs, renderApp } from '../../test/render';

let server: ReturnType<typeof fakeApi>;
beforeEach(() => {
  server = fakeApi({ 'GET users/loginStatus': [200, true] });
});
afterEach(() => server.restore());

const admin = aUser({ _id: 'admin-1', name: 'Grace Hopper', email: 'grace@meridian.test', role: 'admin' });
const entry = (over: Record<string, unknown>) => ({
  id: 'e1',
  at: '2026-03-04T10:20:00.000Z',
  adminId: 'admin-1',
  adminEmail: 'grace@meridian.test',
  userId: 'u-2',
  userEmail: 'ada@example.com',
  action: 'RoleChanged',
  service: 'identity',
  address: '203.0.113.7',
  impersonating: false,
  details: '{"toRole":"suspended"}',
  ...over,
});

describe('audit trail screen', () => {
  it('lists the entries, applies the filters, pages on and links the CSV of the same filters', async () => {
    server.on('GET admin/audit?limit=50', [
      200,
      {
        entries: [entry({}), entry({ id: 'e2', action: 'ProfileUpdated', impersonating: true, address: '' })],
        nextCursor: 'k2',
      },
    ]);
    server.on('GET admin/audit?limit=50&cursor=k2', [
      200,
      { entries: [entry({ id: 'e3', action: 'DepositConfirmed', service: 'ledger' })], nextCursor: '' },
    ]);
    server.on('GET admin/audit?user=ada%40example.com&action=RoleChanged&limit=50', [
      200,
      { entries: [entry({})], nextCursor: '' },
    ]);
    const { user } = renderApp('/admin/audit', { preloadedState: loggedInAs(admin) });

    const table = await screen.findByRole('table', { name: 'Audit entries' });
    const rows = () => within(table).getAllByRole('row').slice(1);
    expect(rows()).toHaveLength(2);
    expect(rows()[0]).toHaveTextContent('Role changed');
    expect(rows()[0]).toHaveTextContent('ada@example.com');
    expect(rows()[0]).toHaveTextContent('203.0.113.7');
    expect(rows()[1]).toHaveTextContent('impersonating');

    await user.click(screen.getByRole('button', { name: 'Load more' }));
    await within(table).findByText('Deposit confirmed');
    expect(rows()).toHaveLength(3);
    expect(screen.queryByRole('button', { name: 'Load more' })).toBeNull();

    await user.type(screen.getByLabelText('User'), 'ada@example.com');
    await user.selectOptions(screen.getByLabelText('Action'), 'RoleChanged');
    await user.click(screen.getByRole('button', { name: 'Apply filters' }));
    await screen.findByRole('link', { name: 'Export CSV' });
    await expect.poll(() => rows().length).toBe(1);
    expect(screen.getByRole('link', { name: 'Export CSV' })).toHaveAttribute(
      'href',
      '/api/admin/audit?user=ada%40example.com&action=RoleChanged&format=csv',
    );
  }, 30_000); // a dozen interactions: ~10 s on a loaded 2-core machine

  it('is an admin page', async () => {
    renderApp('/admin/audit', { preloadedState: loggedInAs(aUser({ role: 'subscriber' })) });
    await screen.findByRole('heading', { level: 1 });
    expect(screen.queryByRole('heading', { name: 'Audit trail' })).toBeNull();
    expect(server.callsTo('GET admin/audit?limit=50')).toHaveLength(0);
  });
});

describe('security events on the Security tab', () => {
  it("lists the user's sign-ins, new browsers and password changes with time and address", async () => {
    server.on('GET users/securityEvents', [
      200,
      {
        events: [
          {
            id: 's3',
            at: '2026-03-04T10:20:00.000Z',
            kind: 'password_changed',
            method: 'change',
            address: '192.0.2.1',
          },
          {
            id: 's2',
            at: '2026-03-04T10:10:00.000Z',
            kind: 'login',
            method: 'password',
            address: '192.0.2.1',
          },
          { id: 's1', at: '2026-03-04T10:00:00.000Z', kind: 'new_device', method: 'code', address: '' },
        ],
      },
    ]);
    const { user } = renderApp('/user-profile', { preloadedState: loggedInAs(aUser({})) });
    await user.click(await screen.findByRole('tab', { name: 'Security' }));
    const list = await screen.findByRole('list', { name: 'Security events' });
    const items = within(list).getAllByRole('listitem');
    expect(items.map((i) => i.textContent)).toEqual([
      expect.stringMatching(/^Password changed from your profile.*2026.*192\.0\.2\.1$/),
      expect.stringMatching(/^Sign-in with your password.*192\.0\.2\.1$/),
      expect.stringMatching(/^Sign-in from a new browser with an emailed code.*2026/),
    ]);
  });
});
