import { fireEvent, screen, waitFor, within } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { fakeApi } from '../../test/fakeApi';
import { stubIntersectionObserver } from '../../test/intersection';
import { aUser, clickThenSee, expectLinks, loggedInAs, renderApp, submitShowsAlert } from '../../test/render';
import { filterUsers } from './UsersTab';

let server: ReturnType<typeof fakeApi>;
beforeEach(() => {
  server = fakeApi({
    'GET users/loginStatus': [200, true],
    'GET countries': [
      200,
      [
        { name: 'Kenya', code: 'KE' },
        { name: 'United Kingdom', code: 'GB' },
      ],
    ],
  });
});
afterEach(() => server.restore());

const admin = aUser({ _id: 'admin-1', name: 'Grace Hopper', email: 'grace@meridian.test', role: 'admin' });
const people = [
  admin,
  aUser({ _id: 'u-2', name: 'Alexandria Ocasio-Smithers', email: 'alex@example.com', isVerified: true }),
  aUser({ _id: 'u-3', name: 'Tim', email: 'tim@example.com', isVerified: false, role: 'suspended' }),
  aUser({ _id: 'u-4', name: 'Ada', email: 'ada@example.com', isVerified: false }),
];

const stats = { total: 4, verified: 2, unverified: 2, suspended: 1 };

async function openUsers() {
  server.on('GET users/getUsers', [200, people]);
  server.on('GET users/userStats', [200, stats]);
  const view = renderApp('/user-profile', { preloadedState: loggedInAs(admin) });
  await view.user.click(screen.getByRole('tab', { name: 'Users' }));
  await screen.findByRole('list', { name: 'Users' });
  return view;
}

describe('profile tab', () => {
  it('shows the name cut to 10, email read-only, and saves the changed fields', async () => {
    const ada = aUser({ name: 'Adalinda Lovelace', phone: '1', bio: '', country: 'Kenya' });
    server.on('PATCH users/updateUser', ({ body }) => [200, { ...ada, ...(body as object) }]);
    const { user, store } = renderApp('/user-profile', { preloadedState: loggedInAs(ada) });
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Adalinda L...');
    expect(screen.getByLabelText('Email')).toHaveAttribute('readonly');
    expect(screen.queryByRole('tab', { name: 'Users' })).not.toBeInTheDocument();
    await user.clear(screen.getByLabelText('Name'));
    await user.type(screen.getByLabelText('Name'), 'Ada L');
    await user.type(screen.getByLabelText('Bio'), 'Investor');
    await user.selectOptions(await screen.findByLabelText('Country'), 'United Kingdom');
    await clickThenSee(user, [['Update profile', 'User Updated']]);
    expect(server.callsTo('PATCH users/updateUser')[0]!.body).toEqual({
      name: 'Ada L',
      phone: '1',
      bio: 'Investor',
      country: 'United Kingdom',
    });
    expect(store.getState().auth.user?.name).toBe('Ada L');
  });

  it('rejects a photo that is not jpeg, jpg or png', async () => {
    renderApp('/user-profile', { preloadedState: loggedInAs(aUser()) });
    const gif = new File(['x'], 'me.gif', { type: 'image/gif' });
    fireEvent.change(screen.getByLabelText('Profile photo'), { target: { files: [gif] } });
    expect(await screen.findByRole('alert')).toHaveTextContent('Only jpeg, jpg and png images are allowed');
  });
});

describe('security tab', () => {
  it('requires all three fields and a match, then sends oldPassword and password', async () => {
    server.on('PATCH users/changePassword', [200, { message: 'Password change successful' }]);
    const { user } = renderApp('/user-profile', { preloadedState: loggedInAs(aUser()) });
    await user.click(screen.getByRole('tab', { name: 'Security' }));
    await submitShowsAlert(user, 'Change password', 'All fields are required');
    await user.type(screen.getByLabelText('Current password'), 'Old1!x');
    await user.type(screen.getByLabelText('New password'), 'New1!xy');
    await user.type(screen.getByLabelText('Confirm new password'), 'New1!xz');
    await submitShowsAlert(user, 'Change password', 'Passwords do not match');
    await user.clear(screen.getByLabelText('Confirm new password'));
    await user.type(screen.getByLabelText('Confirm new password'), 'New1!xy');
    await clickThenSee(user, [['Change password', 'Password change successful']]);
    expect(server.callsTo('PATCH users/changePassword')[0]!.body).toEqual({
      oldPassword: 'Old1!x',
      password: 'New1!xy',
    });
  });
});

describe('users tab (admin)', () => {
  it('filters by name or email', () => {
    expect(filterUsers(people, 'ALEX').map((u) => u._id)).toEqual(['u-2']);
    expect(filterUsers(people, 'tim@').map((u) => u._id)).toEqual(['u-3']);
    expect(filterUsers(people, '  ')).toHaveLength(4);
  });

  it('shows statistics, cards cut to 12, balance links, search and the empty state', async () => {
    const { user } = await openUsers();
    const stats = within(screen.getByLabelText('User statistics'));
    expect(stats.getByText('Total users').previousSibling).toHaveTextContent('4');
    expect(stats.getByText('Verified users').previousSibling).toHaveTextContent('2');
    expect(stats.getByText('Unverified users').previousSibling).toHaveTextContent('2');
    expect(stats.getByText('Suspended users').previousSibling).toHaveTextContent('1');
    const card = within(screen.getByRole('listitem', { name: 'Alexandria Ocasio-Smithers' }));
    expect(card.getByText('Alexandria O...')).toBeInTheDocument();
    expectLinks(
      {
        'Edit profit': '/edit-balance/u-2',
        'Edit deposit': '/edit-user-balance/u-2',
        'Edit investment': '/edit-investment-balance/u-2',
      },
      card,
    );
    // maker-checker: the admin's own card offers no balance edit, it says who does it
    const own = within(screen.getByRole('listitem', { name: admin.name }));
    expect(own.queryByRole('link', { name: /^Edit / })).toBeNull();
    expect(own.getByText('Your own balances are edited by another admin.')).toBeInTheDocument();
    // the server refuses an admin's own role change, deletion and impersonation: the buttons say so first
    for (const action of ['Change role of', 'Impersonate', 'Delete'])
      expect(own.getByRole('button', { name: `${action} ${admin.name}` })).toBeDisabled();
    await user.type(screen.getByLabelText('Search users'), 'ada@');
    expect(
      screen.getAllByRole('listitem', { name: /./ }).filter((li) => li.classList.contains('user-card')),
    ).toHaveLength(1);
    await user.clear(screen.getByLabelText('Search users'));
    await user.type(screen.getByLabelText('Search users'), 'nobody');
    expect(screen.getByText('No user found...')).toBeInTheDocument();
  });

  it('loads the next page when the end of the list scrolls into view, and searches on the server', async () => {
    const { scrollToEnd } = stubIntersectionObserver();
    const more = [aUser({ _id: 'u-9', name: 'Zed Older', email: 'zed@example.com' })];
    server.on('GET users/userStats', [200, { total: 5, verified: 2, unverified: 3, suspended: 1 }]);
    server.on('GET users/getUsers', ({ url }) =>
      url.includes('cursor=c1') ? [200, more] : [200, people, { 'x-next-cursor': 'c1' }],
    );
    const { user } = renderApp('/user-profile', { preloadedState: loggedInAs(admin) });
    await user.click(screen.getByRole('tab', { name: 'Users' }));
    await screen.findByRole('listitem', { name: 'Ada' });
    expect(screen.queryByRole('listitem', { name: 'Zed Older' })).not.toBeInTheDocument();
    expect(
      within(screen.getByLabelText('User statistics')).getByText('Total users').previousSibling,
    ).toHaveTextContent('5');
    await scrollToEnd();
    expect(await screen.findByRole('listitem', { name: 'Zed Older' })).toBeInTheDocument();
    expect(server.callsTo('GET users/getUsers').map((c) => c.url)).toEqual([
      'users/getUsers?limit=50',
      'users/getUsers?limit=50&cursor=c1',
    ]);
    // the last page: no sentinel, nothing more to load
    expect(screen.queryByTestId('users-more')).not.toBeInTheDocument();
    await user.type(screen.getByLabelText('Search users'), 'Zed');
    await waitFor(() =>
      expect(server.callsTo('GET users/getUsers').at(-1)?.url).toBe('users/getUsers?limit=50&q=Zed'),
    );
    vi.unstubAllGlobals();
  });

  it("role modal: 'Please select a role', then upgrades and reloads the list; Escape closes it", async () => {
    server.on('POST users/upgradeUser', [200, { message: 'User role updated to author' }]);
    const { user } = await openUsers();
    await user.click(screen.getByRole('button', { name: 'Change role of Ada' }));
    const dialog = within(screen.getByRole('dialog', { name: 'Change role' }));
    await user.click(dialog.getByRole('button', { name: 'Update role' }));
    expect(dialog.getByRole('alert')).toHaveTextContent('Please select a role');
    expect(dialog.getAllByRole('option').map((o) => o.textContent)).toEqual([
      '-- select --',
      'subscriber',
      'author',
      'admin',
      'suspended',
    ]);
    await user.selectOptions(dialog.getByLabelText('New role'), 'author');
    await user.click(dialog.getByRole('button', { name: 'Update role' }));
    expect(await screen.findByText('User role updated to author')).toBeInTheDocument();
    expect(server.callsTo('POST users/upgradeUser')[0]!.body).toEqual({ role: 'author', id: 'u-4' });
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(server.callsTo('GET users/getUsers')).toHaveLength(2);

    await user.click(screen.getByRole('button', { name: 'Change role of Tim' }));
    expect(screen.getByRole('dialog')).toBeInTheDocument();
    await user.keyboard('{Escape}');
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
  });

  it("delete asks 'Are you sure to delete this user?', closes on a click outside, then deletes", async () => {
    server.on('DELETE users/u-3', [200, { message: 'User deleted successfully' }]);
    const { user } = await openUsers();
    await user.click(screen.getByRole('button', { name: 'Delete Tim' }));
    expect(screen.getByRole('dialog')).toHaveTextContent('Are you sure to delete this user?');
    fireEvent.mouseDown(screen.getByTestId('modal-backdrop'));
    expect(screen.queryByRole('dialog')).not.toBeInTheDocument();
    expect(server.callsTo('DELETE users/u-3')).toHaveLength(0);
    await user.click(screen.getByRole('button', { name: 'Delete Tim' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
    expect(await screen.findByText('User deleted successfully')).toBeInTheDocument();
    expect(server.callsTo('DELETE users/u-3')).toHaveLength(1);
  });

  it('a deletion refused for pending requests offers to cancel them and delete', async () => {
    server.on('DELETE users/u-3', [
      400,
      {
        message:
          'This user has 1 pending deposit and a balance of $120.00: settle them first, or delete with cancelPending=true',
      },
    ]);
    server.on('DELETE users/u-3?cancelPending=true', [200, { message: 'User deleted successfully' }]);
    const { user } = await openUsers();
    await user.click(screen.getByRole('button', { name: 'Delete Tim' }));
    await user.click(within(screen.getByRole('dialog')).getByRole('button', { name: 'Delete' }));
    const settle = await screen.findByRole('dialog');
    expect(settle).toHaveTextContent('Tim has 1 pending deposit and a balance of $120.00.');
    expect(server.callsTo('DELETE users/u-3?cancelPending=true')).toHaveLength(0);
    await user.click(within(settle).getByRole('button', { name: 'Cancel requests and delete' }));
    expect(await screen.findByText('User deleted successfully')).toBeInTheDocument();
    expect(server.callsTo('DELETE users/u-3?cancelPending=true')).toHaveLength(1);
  });

  it('impersonation failure shows the server message in an alert; success reloads the user and opens the dashboard', async () => {
    const alert = vi.spyOn(window, 'alert').mockImplementation(() => undefined);
    server.on('POST users/impersonate/u-2', [403, { message: 'Cannot impersonate another admin' }]);
    server.on('POST users/impersonate/u-4', [200, { message: 'Now impersonating Ada' }]);
    server.on('GET users/getUser', [200, { ...people[3], isImpersonated: true }]);
    server.on('GET invest/deposit-maturity', [200, {}]);
    const { user, router, store } = await openUsers();
    await user.click(screen.getByRole('button', { name: 'Impersonate Alexandria Ocasio-Smithers' }));
    await waitFor(() => expect(alert).toHaveBeenCalledWith('Cannot impersonate another admin'));
    server.on('POST users/impersonate/u-3', [500, {}]);
    await user.click(screen.getByRole('button', { name: 'Impersonate Tim' }));
    await waitFor(() => expect(alert).toHaveBeenLastCalledWith('Request failed with status code 500'));
    await user.click(screen.getByRole('button', { name: 'Impersonate Ada' }));
    await waitFor(() => expect(router.state.location.pathname).toBe('/dashboard'));
    expect(store.getState().auth.user?.isImpersonated).toBe(true);
  });

  it('offers Exit Impersonation when impersonated and returns to the admin', async () => {
    const impersonated = aUser({ name: 'Ada', isImpersonated: true });
    server.on('POST users/exit-impersonation', [200, { message: 'Exited impersonation' }]);
    server.on('GET users/getUser', [200, admin]);
    server.on('GET users/getUsers', [200, people]);
    server.on('GET users/userStats', [200, stats]);
    const { user, store } = renderApp('/user-profile', { preloadedState: loggedInAs(impersonated) });
    await clickThenSee(user, [['Exit Impersonation', 'Exited impersonation']]);
    await waitFor(() => expect(store.getState().auth.user?._id).toBe('admin-1'));
    expect(screen.queryByRole('button', { name: 'Exit Impersonation' })).not.toBeInTheDocument();
    expect(await screen.findByRole('tab', { name: 'Users', selected: true })).toBeInTheDocument();
  });
});
