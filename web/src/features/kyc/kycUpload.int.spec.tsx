import { act, fireEvent, screen } from '@testing-library/react';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { api, ApiError, type ApiRequest } from '../../app/apiClient';
import { EMPTY_DASHBOARD, fakeApi } from '../../test/fakeApi';
import { aUser, loggedInAs, renderApp } from '../../test/render';

let server: ReturnType<typeof fakeApi>;
/** The upload in flight: its request (progress callback and abort signal) and how to finish it. */
let inFlight: { req: ApiRequest; finish: () => void } | null;

beforeEach(() => {
  server = fakeApi(EMPTY_DASHBOARD);
  inFlight = null;
  const routes = api.defaults.adapter;
  api.defaults.adapter = (req) =>
    req.url === 'users/uploadKycDocuments'
      ? new Promise((resolve, reject) => {
          req.signal?.addEventListener('abort', () =>
            reject(new ApiError('Request aborted', 'ERR_ABORTED', req)),
          );
          inFlight = { req, finish: () => resolve({ data: { message: 'ok' }, status: 201, config: req }) };
        })
      : routes(req);
});
afterEach(() => server.restore());

const png = (name: string) => new File(['x'], name, { type: 'image/png' });

function pickBoth() {
  fireEvent.change(screen.getByLabelText('Front of document'), { target: { files: [png('front.png')] } });
  fireEvent.change(screen.getByLabelText('Back of document'), { target: { files: [png('back.png')] } });
}

describe('KYC upload progress', () => {
  it('shows the percentage sent as a progress bar while the files upload', async () => {
    const self = aUser({ kycStatus: 'Not Submitted' });
    server.on('GET users/getUser', [200, self]);
    const { user } = renderApp('/upload-kyc', { preloadedState: loggedInAs(self) });
    pickBoth();
    await user.click(screen.getByRole('button', { name: 'Submit KYC' }));
    const bar = screen.getByRole('progressbar', { name: 'Upload progress' });
    expect(bar).toHaveAttribute('aria-valuenow', '0');
    act(() => inFlight!.req.onUploadProgress!({ loaded: 4_194_304, total: 10_485_760 }));
    expect(bar).toHaveAttribute('aria-valuenow', '40');
    expect(bar).toHaveAttribute('aria-valuetext', '40% uploaded');
    expect(bar).toHaveTextContent('40%');
    expect(screen.getByRole('button', { name: /Uploading…/ })).toBeDisabled();
    act(() => inFlight!.finish());
    expect((await screen.findAllByText(/KYC documents uploaded successfully!/)).length).toBeGreaterThan(0);
    expect(bar).toHaveAttribute('aria-valuenow', '100');
  });

  it('cancels the upload when the screen is left, without an error', async () => {
    const self = aUser({ kycStatus: 'Not Submitted' });
    server.on('GET users/getUser', [200, self]);
    const { user, router } = renderApp('/upload-kyc', { preloadedState: loggedInAs(self) });
    pickBoth();
    await user.click(screen.getByRole('button', { name: 'Submit KYC' }));
    expect(inFlight!.req.signal?.aborted).toBe(false);
    await user.click(screen.getAllByRole('link', { name: 'Dashboard' })[0]!);
    expect(router.state.location.pathname).toBe('/dashboard');
    expect(inFlight!.req.signal?.aborted).toBe(true);
    await screen.findByRole('heading', { name: /Welcome/ });
    expect(screen.queryByText('Upload failed. Please try again.')).toBeNull();
  });
});
