/**
 * A real SMTP server for tests (smtp-server + mailparser on 127.0.0.1): answers the first
 * `rejectFirst` messages with `rejectCode` (451 = try again later), then accepts and keeps them.
 */
import type { Socket } from 'node:net';
import { simpleParser, type ParsedMail } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface SmtpTestServer {
  url: string;
  /** Every DATA the server saw, accepted or refused. */
  attempts: number;
  /** Connections opened to the server, and closed (by either side). */
  connections: number;
  closedConnections: number;
  /** Ends every open connection from the server's side (as a server's idle timeout does). */
  dropConnections(): void;
  accepted: ParsedMail[];
  close(): Promise<void>;
}

export async function startSmtpTestServer(
  options: { rejectFirst?: number; rejectCode?: number } = {},
): Promise<SmtpTestServer> {
  const state = { attempts: 0, accepted: [] as ParsedMail[], connections: 0, closedConnections: 0 };
  const sockets = new Set<Socket>();
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['AUTH', 'STARTTLS'],
    logger: false,
    onConnect(_session, callback) {
      state.connections++;
      callback();
    },
    onClose() {
      state.closedConnections++;
    },
    onData(stream, _session, callback) {
      simpleParser(stream).then(
        (mail) => {
          state.attempts++;
          if (state.attempts <= (options.rejectFirst ?? 0)) {
            const err = Object.assign(new Error('Mailbox busy, try again later'), {
              responseCode: options.rejectCode ?? 451,
            });
            return callback(err);
          }
          state.accepted.push(mail);
          callback();
        },
        (err: Error) => callback(err),
      );
    },
  });
  server.server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  const port = await new Promise<number>((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const address = server.server.address();
      resolve(typeof address === 'object' && address ? address.port : 0);
    }),
  );
  return {
    url: `smtp://127.0.0.1:${port}`,
    get attempts() {
      return state.attempts;
    },
    get connections() {
      return state.connections;
    },
    get closedConnections() {
      return state.closedConnections;
    },
    dropConnections() {
      for (const socket of sockets) socket.destroy();
    },
    accepted: state.accepted,
    // the senders' pooled connections are ended first: smtp-server's close otherwise waits for them (closeTimeout)
    close: () => {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      for (const socket of sockets) socket.destroy();
      return closed;
    },
  };
}
