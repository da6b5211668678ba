import { Writable } from 'node:stream';

/**
 * A logger destination that keeps what is written (createLogger(name, { destination })): each JSON log
 * line parsed, in order, for a spec to assert on.
 */
export function captureLog(): { lines: Array<Record<string, unknown>>; destination: Writable } {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _enc, done) {
      for (const line of String(chunk).split('\n').filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { lines, destination };
}
