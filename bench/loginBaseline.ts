/**
 * The "bare hash behind HTTP" baseline of the logins bench (bench/logins.ts), run as a child process like
 * the standalone target so the load generator competes with neither: a bare Node HTTP server whose
 * POST /api/users/login {email, password} does nothing but the identity service's own argon2id verify
 * (services/identity/src/adapters/passwordHasher.argon2.ts: same parameters, same hash pool, and the
 * same UV_THREADPOOL_SIZE as the target, both inheriting the bench's environment) against a hash made
 * here at start, and answers 200 {"message":"Login Successful"} (401 on a wrong password). Any GET answers
 * 200 with an XSRF-TOKEN cookie, so the bench's browser session (bench/http.ts) talks to it unchanged.
 * Listens on 127.0.0.1 on a port the OS picks; prints {"port":n,"hashConcurrency":n} on stdout.
 */
import { createServer } from 'node:http';
import { createArgon2PasswordHasher } from '@meridian/identity/adapters/passwordHasher.argon2';
import { listenOn } from '@meridian/platform/util/freePort';

const PASSWORD = process.env.LOGIN_BASELINE_PASSWORD ?? 'Bench!Pass1';

async function main(): Promise<void> {
  const hasher = createArgon2PasswordHasher();
  const stored = await hasher.hash(PASSWORD);
  const server = createServer((req, res) => {
    if (req.method !== 'POST') {
      res.writeHead(200, { 'content-type': 'application/json', 'set-cookie': 'XSRF-TOKEN=bench; Path=/' });
      res.end('false');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      let password = '';
      try {
        password = String((JSON.parse(Buffer.concat(chunks).toString()) as { password?: unknown }).password);
      } catch {
        // an unreadable body is a wrong password
      }
      void hasher.verify(stored, password).then((ok) => {
        res.writeHead(ok ? 200 : 401, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ message: ok ? 'Login Successful' : 'Invalid email or password' }));
      });
    });
  });
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
  const port = await listenOn(server, 0, '127.0.0.1');
  process.stdout.write(`${JSON.stringify({ port, hashConcurrency: hasher.concurrency })}\n`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
