import { useId, useRef, useState, type ChangeEvent } from 'react';
import { errorMessage } from '../../app/errors';
import { Button } from '../../ui/Button';
import { FormError, InputField } from '../../ui/Field';
import {
  blobText,
  downloadStatement,
  periodProblem,
  saveBlob,
  thisMonth,
  verifyStatementText,
  type Period,
  type StatementFormat,
  type VerifyOutcome,
} from './statementsApi';
import './statements.css';

const FORMATS: Array<{ format: StatementFormat; label: string }> = [
  { format: 'pdf', label: 'Download PDF' },
  { format: 'json', label: 'Download JSON' },
  { format: 'csv', label: 'Download CSV' },
];

const entriesText = (n: number) => `${n} ${n === 1 ? 'entry' : 'entries'}`;

/** What was verified and what the verifier said. */
interface Verdict extends VerifyOutcome {
  source: string;
}

function VerifyResult({ verdict }: { verdict: Verdict }) {
  if (verdict.intact)
    return (
      <div className="statement-verdict statement-verdict--intact" role="status">
        <p className="statement-verdict__title">
          Statement intact: {entriesText(verdict.entries)}, chain head{' '}
          <code className="statement-verdict__hash" title={verdict.head ?? undefined}>
            {verdict.head ? `${verdict.head.slice(0, 12)}…` : 'none'}
          </code>
        </p>
        <p className="statement-verdict__source">{verdict.source}</p>
      </div>
    );
  return (
    <div className="statement-verdict statement-verdict--broken" role="alert">
      <p className="statement-verdict__title">Statement NOT intact</p>
      <p className="statement-verdict__source">{verdict.source}</p>
      {verdict.problems.length > 0 ? (
        <ul className="statement-verdict__problems" aria-label="Problems found">
          {verdict.problems.map((problem, i) => (
            <li key={i}>{problem}</li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** The two ends of a statement's period, each bounded by the other. */
const PERIOD_ENDS = [
  { field: 'from', label: 'From', bound: 'max', other: 'to' },
  { field: 'to', label: 'To', bound: 'min', other: 'from' },
] as const;

/**
 * The "Statements" part of /transaction-History: a period, its statement downloaded as PDF,
 * JSON or CSV, and meridian-verify run here in the browser on a JSON statement (a file, or the one just
 * downloaded): it recomputes the hash chain and the balances.
 */
export function StatementsSection() {
  const headingId = useId();
  const fileId = useId();
  const [period, setPeriod] = useState<Period>(() => thisMonth());
  const [busy, setBusy] = useState<StatementFormat | null>(null);
  const [error, setError] = useState('');
  const [lastJson, setLastJson] = useState<{ text: string; filename: string } | null>(null);
  const [verifying, setVerifying] = useState(false);
  const [verdict, setVerdict] = useState<Verdict | null>(null);
  const fileInput = useRef<HTMLInputElement>(null);

  const problem = periodProblem(period);

  async function download(format: StatementFormat) {
    if (problem) {
      setError(problem);
      return;
    }
    setError('');
    setBusy(format);
    try {
      const statement = await downloadStatement(period, format);
      saveBlob(statement.blob, statement.filename);
      if (format === 'json')
        setLastJson({ text: await blobText(statement.blob), filename: statement.filename });
    } catch (err) {
      setError(errorMessage(err));
    } finally {
      setBusy(null);
    }
  }

  async function verify(text: string, source: string) {
    setVerifying(true);
    setVerdict(null);
    try {
      setVerdict({ ...(await verifyStatementText(text)), source });
    } catch (err) {
      setVerdict({ intact: false, problems: [errorMessage(err)], entries: 0, head: null, source });
    } finally {
      setVerifying(false);
    }
  }

  async function onFile(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (!file) return;
    await verify(await blobText(file), `Checked: ${file.name}`);
    // the same file chosen again (after an edit) verifies again
    if (fileInput.current) fileInput.current.value = '';
  }

  const setDay = (field: keyof Period) => (e: ChangeEvent<HTMLInputElement>) => {
    setError('');
    setPeriod((p) => ({ ...p, [field]: e.target.value }));
  };

  return (
    <section className="card statements" aria-labelledby={headingId}>
      <div className="statements__intro">
        <h2 id={headingId} className="statements__title">
          Statements
        </h2>
        <p className="muted statements__lede">
          Opening and closing balances per account and every ledger entry of a period, each with its hash and
          the chain head, so anyone can check that nothing was changed.
        </p>
      </div>

      <div className="statements__grid">
        <div className="statements__panel">
          <h3 className="statements__subtitle">Download a statement</h3>
          <div className="statements__period" role="group" aria-label="Statement period">
            {PERIOD_ENDS.map(({ field, label, bound, other }) => (
              <InputField
                key={field}
                label={label}
                type="date"
                value={period[field]}
                {...{ [bound]: period[other] || undefined }}
                onChange={setDay(field)}
                required
              />
            ))}
          </div>
          <div className="statements__actions">
            {FORMATS.map(({ format, label }) => (
              <Button
                key={format}
                variant={format === 'pdf' ? 'primary' : 'secondary'}
                size="sm"
                busy={busy === format}
                busyLabel="Preparing…"
                disabled={busy !== null && busy !== format}
                onClick={() => void download(format)}
              >
                {label}
              </Button>
            ))}
          </div>
          <FormError message={error} />
        </div>

        <div className="statements__panel statements__panel--verify">
          <h3 className="statements__subtitle">Verify a statement</h3>
          <div className="file-drop statements__file">
            <label htmlFor={fileId} className="file-drop__label">
              Statement file (JSON)
            </label>
            <input
              ref={fileInput}
              id={fileId}
              type="file"
              accept=".json,application/json"
              onChange={(e) => void onFile(e)}
              aria-describedby={`${fileId}-hint`}
            />
            <p className="file-drop__hint" id={`${fileId}-hint`}>
              Recomputes every entry&apos;s hash, the chain and the balances here in your browser; nothing is
              sent.
            </p>
          </div>
          <div className="statements__actions">
            <Button
              variant="ghost"
              size="sm"
              disabled={!lastJson || verifying}
              onClick={() => lastJson && void verify(lastJson.text, `Checked: ${lastJson.filename}`)}
            >
              Verify the statement just downloaded
            </Button>
          </div>
          {verifying ? <p className="muted statements__checking">Checking the statement…</p> : null}
          {verdict ? <VerifyResult verdict={verdict} /> : null}
        </div>
      </div>
    </section>
  );
}
