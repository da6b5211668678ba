import { act, fireEvent, screen, within } from '@testing-library/react';
import { describe, expect, it, vi } from 'vitest';
import { browser } from '../../app/browser';
import { fakeApiEachTest } from '../../test/fakeApi';
import { aUser, loggedInAs, pushLive, renderApp } from '../../test/render';
import { KYC_MAX_BYTES, kycFileProblem } from './kycFile';

const server = fakeApiEachTest();

const file = (name: string, type: string, size = 1000) => {
  const f = new File(['x'], name, { type });
  Object.defineProperty(f, 'size', { value: size });
  return f;
};

describe('KYC file checks', () => {
  it('requires a file, at most 10485760 bytes, of an allowed type', () => {
    expect(kycFileProblem(null)).toBe('Please select a file.');
    expect(kycFileProblem(file('a.png', 'image/png', KYC_MAX_BYTES))).toBeNull();
    expect(kycFileProblem(file('a.png', 'image/png', KYC_MAX_BYTES + 1))).toBe(
      'File size must be less than 10MB.',
    );
    for (const [name, type] of [
      ['a.jpg', 'image/jpeg'],
      ['a.gif', 'image/gif'],
      ['a.webp', 'image/webp'],
      ['a.bmp', 'image/bmp'],
      ['a.heic', 'image/heic'],
      ['a.heic', ''],
      ['a.pdf', 'application/pdf'],
    ])
      expect(kycFileProblem(file(name!, type!))).toBeNull();
    expect(kycFileProblem(file('a.svg', 'image/svg+xml'))).toBe(
      'Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed.',
    );
    expect(kycFileProblem(file('a.html', 'text/html'))).toBe(
      'Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed.',
    );
  });
});

describe('/upload-kyc', () => {
  const me = () => aUser({ kycStatus: 'Not Submitted' });

  it('shows the document types, the important notice, and a verification notice to an unverified user', () => {
    renderApp('/upload-kyc', {
      preloadedState: loggedInAs(aUser({ isVerified: false, kycStatus: 'Not Submitted' })),
    });
    for (const name of ['Passport', 'National ID', "Driver's License"])
      expect(screen.getByRole('heading', { name })).toBeInTheDocument();
    expect(screen.getByRole('note', { name: 'Important notice' })).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Verification notice' })).toBeInTheDocument();
  });

  it('rejects and clears an invalid pick', async () => {
    renderApp('/upload-kyc', { preloadedState: loggedInAs(me()) });
    const input = screen.getByLabelText('Front of document') as HTMLInputElement;
    fireEvent.change(input, { target: { files: [file('big.png', 'image/png', KYC_MAX_BYTES + 1)] } });
    expect((await screen.findAllByText('File size must be less than 10MB.')).length).toBeGreaterThan(0);
    expect(input.value).toBe('');
    fireEvent.change(input, { target: { files: [file('doc.txt', 'text/plain')] } });
    expect(
      (await screen.findAllByText('Invalid file format. Only JPEG, JPG, PNG, and PDF are allowed.')).length,
    ).toBeGreaterThan(0);
    fireEvent.change(input, { target: { files: [] } });
    expect((await screen.findAllByText('Please select a file.')).length).toBeGreaterThan(0);
  });

  it('needs both sides', async () => {
    const { user } = renderApp('/upload-kyc', { preloadedState: loggedInAs(me()) });
    fireEvent.change(screen.getByLabelText('Front of document'), {
      target: { files: [file('front.jpg', 'image/jpeg')] },
    });
    await user.click(screen.getByRole('button', { name: 'Submit KYC' }));
    expect(
      (await screen.findAllByText('Please upload both front and back documents.')).length,
    ).toBeGreaterThan(0);
    expect(server.callsTo('POST users/uploadKycDocuments')).toHaveLength(0);
  });

  it('uploads front and back as multipart, then reloads /dashboard after 2 seconds', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    const reload = vi.spyOn(browser, 'reloadTo').mockImplementation(() => undefined);
    server.on('POST users/uploadKycDocuments', [201, { message: 'ok' }]);
    const { user } = renderApp('/upload-kyc', { preloadedState: loggedInAs(me()), timers: true });
    const front = file('front.jpg', 'image/jpeg');
    const back = file('back.pdf', 'application/pdf');
    fireEvent.change(screen.getByLabelText('Front of document'), { target: { files: [front] } });
    fireEvent.change(screen.getByLabelText('Back of document'), { target: { files: [back] } });
    await user.click(screen.getByRole('button', { name: 'Submit KYC' }));
    expect((await screen.findAllByText(/KYC documents uploaded successfully!/)).length).toBeGreaterThan(0);
    const body = server.callsTo('POST users/uploadKycDocuments')[0]!.body as FormData;
    expect(body.get('front')).toBe(front);
    expect(body.get('back')).toBe(back);
    expect(screen.getByRole('progressbar', { name: 'Upload progress' })).toHaveAttribute(
      'aria-valuenow',
      '100',
    );
    act(() => vi.advanceTimersByTime(1900));
    expect(reload).not.toHaveBeenCalled();
    act(() => vi.advanceTimersByTime(100));
    expect(reload).toHaveBeenCalledWith('/dashboard');
  });

  it('keeps the confirmation on screen when the live Pending status arrives before the redirect', async () => {
    vi.spyOn(browser, 'reloadTo').mockImplementation(() => undefined);
    server.on('POST users/uploadKycDocuments', [200, { message: 'KYC documents uploaded successfully!' }]);
    const self = me();
    const { user, store } = renderApp('/upload-kyc', { preloadedState: loggedInAs(self) });
    fireEvent.change(screen.getByLabelText('Front of document'), {
      target: { files: [file('front.png', 'image/png')] },
    });
    fireEvent.change(screen.getByLabelText('Back of document'), {
      target: { files: [file('back.png', 'image/png')] },
    });
    await user.click(screen.getByRole('button', { name: 'Submit KYC' }));
    await screen.findByRole('status');
    pushLive(store, { event: 'status/changed', payload: { kind: 'kyc', id: self._id, status: 'Pending' } });
    expect(store.getState().auth.user?.kycStatus).toBe('Pending');
    expect(screen.getByRole('status')).toHaveTextContent('KYC documents uploaded successfully!');
    expect(screen.queryByText('Your documents are under review')).toBeNull();
  });

  it('shows a submitted case as under review instead of the form', () => {
    renderApp('/upload-kyc', { preloadedState: loggedInAs(aUser({ kycStatus: 'Pending' })) });
    expect(screen.getByRole('heading', { name: 'Your documents are under review' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Submit KYC' })).toBeNull();
  });

  it("says 'Upload failed. Please try again.'", async () => {
    server.on('POST users/uploadKycDocuments', [400, { message: 'nope' }]);
    const { user } = renderApp('/upload-kyc', { preloadedState: loggedInAs(me()) });
    fireEvent.change(screen.getByLabelText('Front of document'), {
      target: { files: [file('front.jpg', 'image/jpeg')] },
    });
    fireEvent.change(screen.getByLabelText('Back of document'), {
      target: { files: [file('back.jpg', 'image/jpeg')] },
    });
    await user.click(screen.getByRole('button', { name: 'Submit KYC' }));
    expect((await screen.findAllByText('Upload failed. Please try again.')).length).toBeGreaterThan(0);
    expect(screen.getByRole('button', { name: 'Submit KYC' })).toBeEnabled();
  });
});

describe('/pending-kyc', () => {
  const admin = aUser({ _id: 'admin-1', role: 'admin' });
  const pendingUsers = [
    {
      _id: 'k1',
      name: 'Ada Lovelace',
      email: 'ada@example.com',
      kycStatus: 'Pending',
      kyc: { frontDoc: '/api/users/kyc/documents/k1/front', backDoc: '/api/users/kyc/documents/k1/back' },
    },
    {
      _id: 'k2',
      name: 'Tim Berners',
      email: 'tim@example.com',
      kycStatus: 'Pending',
      kyc: { frontDoc: '/f2', backDoc: '/b2' },
    },
  ];

  it('shows cards with name, email, status, each side’s image and its download link', async () => {
    server.on('GET users/kyc/pending', [200, { pendingUsers }]);
    renderApp('/pending-kyc', { preloadedState: loggedInAs(admin) });
    const card = await screen.findByRole('listitem', { name: 'KYC of Ada Lovelace' });
    expect(within(card).getByText('ada@example.com')).toBeInTheDocument();
    expect(within(card).getByText('KYC: Pending')).toBeInTheDocument();
    const front = within(card).getByRole('link', { name: 'Download front' });
    expect(front).toHaveAttribute('href', '/api/users/kyc/documents/k1/front');
    expect(front).toHaveAttribute('download');
    expect(within(card).getByRole('link', { name: 'Download back' })).toHaveAttribute(
      'href',
      '/api/users/kyc/documents/k1/back',
    );
    // the images are shown in the card (served as attachments, never opened as a page of ours)
    expect(within(card).getByRole('img', { name: "Front of Ada Lovelace's document" })).toHaveAttribute(
      'src',
      '/api/users/kyc/documents/k1/front',
    );
    expect(within(card).getByRole('img', { name: "Back of Ada Lovelace's document" })).toHaveAttribute(
      'src',
      '/api/users/kyc/documents/k1/back',
    );
  });

  it("disables every button while one decision runs, the active one reading 'Processing...', then reloads the list", async () => {
    let release: (v: [number, unknown]) => void = () => undefined;
    let list = pendingUsers;
    server.on('GET users/kyc/pending', () => [200, { pendingUsers: list }]);
    server.on('PATCH users/kyc/approve/k1', () => new Promise((r) => (release = r)));
    const { user } = renderApp('/pending-kyc', { preloadedState: loggedInAs(admin) });
    await user.click(await screen.findByRole('button', { name: 'Approve KYC of Ada Lovelace' }));
    const buttons = screen.getAllByRole('button', { name: /KYC of/ });
    expect(buttons).toHaveLength(4);
    for (const b of buttons) expect(b).toBeDisabled();
    expect(screen.getByRole('button', { name: 'Approve KYC of Ada Lovelace' })).toHaveTextContent(
      'Processing...',
    );
    expect(screen.getByRole('button', { name: 'Reject KYC of Ada Lovelace' })).toHaveTextContent('Reject');
    list = [pendingUsers[1]!];
    const before = server.callsTo('GET users/kyc/pending').length;
    release([200, { message: 'KYC approved' }]);
    expect(await screen.findByText('KYC approved successfully!')).toBeInTheDocument();
    await vi.waitFor(() =>
      expect(screen.queryByRole('listitem', { name: 'KYC of Ada Lovelace' })).not.toBeInTheDocument(),
    );
    expect(server.callsTo('GET users/kyc/pending').length).toBe(before + 1);
    // the buttons come back once the reload that follows the decision has finished
    await vi.waitFor(() =>
      expect(screen.getByRole('button', { name: 'Reject KYC of Tim Berners' })).toBeEnabled(),
    );
  });
});
