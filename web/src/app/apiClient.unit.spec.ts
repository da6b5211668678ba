import { afterEach, describe, expect, it, vi } from 'vitest';
import { api, ApiError, REQUEST_TIMEOUT_MS, type ApiAdapter, type ApiRequest } from './apiClient';

const original = api.defaults.adapter;
afterEach(() => {
  api.defaults.adapter = original;
  vi.useRealTimers();
});

/** An adapter that never answers; it records the request (and so its abort signal). */
function silentServer() {
  const seen: ApiRequest[] = [];
  const adapter: ApiAdapter = (request) => {
    seen.push(request);
    return new Promise(() => undefined);
  };
  api.defaults.adapter = adapter;
  return seen;
}

describe('apiClient timeout', () => {
  it('gives up a request that outlasts the default timeout with ERR_TIMEOUT and aborts it', async () => {
    vi.useFakeTimers();
    const seen = silentServer();
    const call = api.get('payments/pending-deposit');
    const failed = expect(call).rejects.toMatchObject({ code: 'ERR_TIMEOUT', response: undefined });
    await vi.advanceTimersByTimeAsync(REQUEST_TIMEOUT_MS - 1);
    expect(seen[0]!.signal?.aborted).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    await failed;
    await expect(call).rejects.toBeInstanceOf(ApiError);
    expect(seen[0]!.signal?.aborted).toBe(true);
  });

  it("takes a request's own timeout", async () => {
    vi.useFakeTimers();
    silentServer();
    const call = api.post('users/uploadKycDocuments', undefined, { timeout: 50 });
    const failed = expect(call).rejects.toMatchObject({ code: 'ERR_TIMEOUT' });
    await vi.advanceTimersByTimeAsync(50);
    await failed;
  });

  it('an answer in time is returned and its timer cleared', async () => {
    vi.useFakeTimers();
    api.defaults.adapter = async (config) => ({ data: { ok: true }, status: 200, config });
    await expect(api.get('health')).resolves.toMatchObject({ data: { ok: true }, status: 200 });
    expect(vi.getTimerCount()).toBe(0);
  });

  it("the caller's abort reaches the adapter", async () => {
    const seen = silentServer();
    const caller = new AbortController();
    void api.get('users/getUser', { signal: caller.signal }).catch(() => undefined);
    caller.abort();
    expect(seen[0]!.signal?.aborted).toBe(true);
  });
});
