import { it } from 'vitest';
import { startKycHarness } from './testing/harness.js';
import { SAMPLES } from './testing/samples.js';
it('debug', async () => {
  const h = await startKycHarness();
  let t = Date.now();
  const lap = (l: string) => { console.log(l, Date.now() - t); t = Date.now(); };
  await h.upload('u1', { front: SAMPLES.png, back: SAMPLES.pdf }); lap('upload');
  for (const as of [{ userId: 'u1' }, { userId: 'a', role: 'admin' }]) {
    const res = await h.getDocument('u1', 'front', as); lap('get');
    await res.arrayBuffer(); lap('body');
  }
  await h.stop(); lap('stop');
});
