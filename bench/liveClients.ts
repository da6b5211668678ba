/**
 * A child process of the live-scale bench (bench/liveScale.ts): holds `LIVE_COUNT` authenticated
 * socket.io clients on `LIVE_URL`, socket i carrying session cookie i mod n of the JSON array in the file
 * `LIVE_COOKIES` (each socket a real websocket, authenticated at its handshake and joined to its user's
 * room by the gateway). At most `LIVE_PARALLEL` handshakes at once.
 *
 * Talks JSON lines on stdout: {type:'limits', nofile} first, {type:'progress', connected, failed} while
 * connecting, {type:'connected', connected, failed, firstError?} when done; on SIGUSR2
 * {type:'received', statusChanged, balancesChanged, supportMessage} (pushes these sockets got so far);
 * SIGTERM: disconnects every socket and exits.
 */
import { readFileSync } from 'node:fs';
import type { Socket } from 'socket.io-client';
import { openSocket } from './socket.js';

const say = (message: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(message)}\n`);

function nofile(): string {
  try {
    const line = readFileSync('/proc/self/limits', 'utf8')
      .split('\n')
      .find((l) => l.startsWith('Max open files'));
    return /^Max open files\s+(\S+)/.exec(line ?? '')?.[1] ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

async function main(): Promise<void> {
  const url = process.env.LIVE_URL ?? '';
  const count = Number(process.env.LIVE_COUNT ?? 0);
  const parallel = Math.max(1, Number(process.env.LIVE_PARALLEL ?? 50));
  const cookies = JSON.parse(readFileSync(process.env.LIVE_COOKIES ?? '', 'utf8')) as string[];
  say({ type: 'limits', nofile: nofile() });

  const sockets: Socket[] = [];
  let statusChanged = 0;
  let balancesChanged = 0;
  let supportMessage = 0;
  let failed = 0;
  let firstError: string | undefined;
  let next = 0;
  let lastReport = 0;

  process.on('SIGUSR2', () => say({ type: 'received', statusChanged, balancesChanged, supportMessage }));
  process.on('SIGTERM', () => {
    for (const s of sockets) s.disconnect();
    process.exit(0);
  });

  const worker = async () => {
    while (next < count) {
      const i = next++;
      try {
        const socket = await openSocket(url, cookies[i % cookies.length]);
        socket.on('status/changed', () => (statusChanged += 1));
        socket.on('balances/changed', () => (balancesChanged += 1));
        socket.on('support/message', () => (supportMessage += 1));
        sockets.push(socket);
      } catch (err) {
        failed += 1;
        firstError ??= (err as Error).message;
      }
      if (Date.now() - lastReport > 1_000) {
        lastReport = Date.now();
        say({ type: 'progress', connected: sockets.length, failed });
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, worker));
  say({ type: 'connected', connected: sockets.length, failed, ...(firstError ? { firstError } : {}) });
}

main().catch((err: unknown) => {
  say({ type: 'error', message: (err as Error)?.message ?? String(err) });
  process.exit(1);
});
