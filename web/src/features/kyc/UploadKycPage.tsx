import { useEffect, useRef, useState, type ChangeEvent, type FormEvent } from 'react';
import { toast } from '../../ui/toast';
import { browser } from '../../app/browser';
import { useAppSelector } from '../../app/hooks';
import { Button } from '../../ui/Button';
import { Card, PageHeader } from '../../ui/Card';
import { FormError, FormSuccess } from '../../ui/Field';
import { ProgressBar } from '../../ui/ProgressBar';
import { kycApi } from './kycApi';
import { KYC_MESSAGES, kycFileProblem } from './kycFile';
import { LinkButton } from '../../ui/ScreenParts';

export const KYC_REDIRECT_MS = 2000;

const DOCUMENTS = [
  {
    name: 'Passport',
    text: 'The photo page, and the page with your signature or address.',
    icon: 'M7 3h10a2 2 0 0 1 2 2v14a2 2 0 0 1-2 2H7a2 2 0 0 1-2-2V5a2 2 0 0 1 2-2zm5 5a3 3 0 1 0 0 6 3 3 0 0 0 0-6zm-3 9h6',
  },
  {
    name: 'National ID',
    text: 'Both sides of your government-issued identity card.',
    icon: 'M3 6h18v12H3zM7 10a1.5 1.5 0 1 0 0 .1M5.5 15c.4-1.3 1.2-2 2.5-2s2.1.7 2.5 2M13 10h5M13 14h4',
  },
  {
    name: "Driver's License",
    text: 'Both sides of a valid, unexpired driving licence.',
    icon: 'M3 6h18v12H3zM6 10h6M6 14h4M15 9h3v4h-3z',
  },
];

type Side = 'front' | 'back';

function FilePick({
  side,
  file,
  error,
  onPick,
}: {
  side: Side;
  file: File | null;
  error: string;
  onPick: (e: ChangeEvent<HTMLInputElement>) => void;
}) {
  const label = side === 'front' ? 'Front of document' : 'Back of document';
  const id = `kyc-${side}`;
  return (
    <div className={`file-drop ${file ? 'has-file' : ''} ${error ? 'has-error' : ''}`}>
      <label htmlFor={id} className="file-drop__label">
        {label}
      </label>
      <input
        id={id}
        name={side}
        type="file"
        accept=".jpeg,.jpg,.png,.gif,.webp,.bmp,.heic,.pdf,image/*,application/pdf"
        onChange={onPick}
        aria-describedby={`${id}-hint`}
      />
      <p className="file-drop__hint" id={`${id}-hint`}>
        {file ? `${file.name} · ${(file.size / 1024 / 1024).toFixed(2)} MB` : 'JPEG, PNG or PDF, up to 10MB'}
      </p>
      {error ? (
        <p className="file-drop__error" role="alert">
          {error}
        </p>
      ) : null}
    </div>
  );
}

/** /upload-kyc: front and back of an identity document, checked before upload; then /dashboard after 2 s with a reload. */
export function UploadKycPage() {
  const user = useAppSelector((s) => s.auth.user);
  const [files, setFiles] = useState<Record<Side, File | null>>({ front: null, back: null });
  const [fieldErrors, setFieldErrors] = useState<Record<Side, string>>({ front: '', back: '' });
  const [error, setError] = useState('');
  const [progress, setProgress] = useState<number | null>(null);
  const [done, setDone] = useState(false);
  const busy = progress !== null && !done;
  const started = useRef(false);
  const upload = useRef<AbortController | null>(null);

  // Leaving the screen cancels an upload still running (no toast, no redirect afterwards).
  useEffect(() => () => upload.current?.abort(), []);

  useEffect(() => {
    if (!done) return;
    const timer = setTimeout(() => browser.reloadTo('/dashboard'), KYC_REDIRECT_MS);
    return () => clearTimeout(timer);
  }, [done]);

  const pick = (side: Side) => (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0] ?? null;
    const problem = kycFileProblem(file);
    if (problem) {
      toast.error(problem);
      event.target.value = ''; // an invalid pick is rejected and cleared
      setFiles((f) => ({ ...f, [side]: null }));
      setFieldErrors((e) => ({ ...e, [side]: problem }));
      return;
    }
    setFiles((f) => ({ ...f, [side]: file }));
    setFieldErrors((e) => ({ ...e, [side]: '' }));
    setError('');
  };

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (!files.front || !files.back) {
      setError(KYC_MESSAGES.bothRequired);
      toast.error(KYC_MESSAGES.bothRequired);
      return;
    }
    if (started.current) return;
    started.current = true;
    setError('');
    setProgress(0);
    try {
      const controller = new AbortController();
      upload.current = controller;
      await kycApi.upload(files.front, files.back, setProgress, controller.signal);
      upload.current = null;
      setProgress(100);
      toast.success(KYC_MESSAGES.uploaded);
      setDone(true);
    } catch {
      if (upload.current?.signal.aborted) return; // the screen was left
      upload.current = null;
      started.current = false;
      setProgress(null);
      setError(KYC_MESSAGES.uploadFailed);
      toast.error(KYC_MESSAGES.uploadFailed);
    }
  }

  const status = user?.kycStatus;
  // Once this upload succeeded, the live status push (Pending) must not swap the confirmation away
  // before the redirect: the form keeps showing it.
  const locked = (status === 'Pending' || status === 'Approved') && !done;

  return (
    <div className="container section">
      <PageHeader
        eyebrow="Identity verification"
        title="Verify your identity"
        subtitle="We are required to confirm who you are before you can withdraw. It takes a few minutes."
      />

      {user && !user.isVerified ? (
        <div className="banner banner--warning" role="region" aria-label="Verification notice">
          <div>
            <h2 className="banner__title">Verify your email first</h2>
            <p>
              Your account is not verified yet. Open the link we emailed you, then upload your documents here.
            </p>
          </div>
          <LinkButton to="/dashboard" variant="secondary">
            Go to dashboard
          </LinkButton>
        </div>
      ) : null}

      {status === 'Rejected' ? (
        <div className="banner banner--warning" role="region" aria-label="KYC status">
          <div>
            <h2 className="banner__title">Your last submission was not accepted</h2>
            <p>Please upload clear photos of both sides of a valid document.</p>
          </div>
        </div>
      ) : null}

      <section aria-labelledby="doc-types" className="section-block">
        <h2 className="h4" id="doc-types">
          Accepted documents
        </h2>
        <div className="doc-grid">
          {DOCUMENTS.map((d) => (
            <div key={d.name} className="doc-card">
              <span className="doc-card__icon" aria-hidden="true">
                <svg viewBox="0 0 24 24" width="26" height="26">
                  <path
                    d={d.icon}
                    fill="none"
                    stroke="currentColor"
                    strokeWidth="1.7"
                    strokeLinecap="round"
                    strokeLinejoin="round"
                  />
                </svg>
              </span>
              <h3 className="doc-card__name">{d.name}</h3>
              <p className="doc-card__text">{d.text}</p>
            </div>
          ))}
        </div>
      </section>

      <div className="notice-box" role="note" aria-label="Important notice">
        <strong>Important notice</strong>
        <ul>
          <li>The document must be valid, not expired, and in your own name.</li>
          <li>All four corners must be visible; text must be sharp and free of glare.</li>
          <li>Upload the front and the back. JPEG, PNG or PDF, up to 10MB each.</li>
          <li>Your documents are stored privately and only seen by our verification team.</li>
        </ul>
      </div>

      {locked ? (
        <Card className="notice-card">
          <h2 className="h3">
            {status === 'Approved' ? 'Your identity is verified' : 'Your documents are under review'}
          </h2>
          <p className="muted">
            {status === 'Approved'
              ? 'Nothing more to do here.'
              : 'We will email you as soon as an administrator has reviewed them.'}
          </p>
          <LinkButton to="/dashboard" variant="secondary">
            Back to dashboard
          </LinkButton>
        </Card>
      ) : (
        <Card className="money-card">
          <form className="form" noValidate onSubmit={onSubmit} aria-label="Upload KYC documents">
            <FormError message={error} />
            <FormSuccess message={done ? `${KYC_MESSAGES.uploaded} Taking you to your dashboard…` : ''} />
            <div className="file-grid">
              <FilePick side="front" file={files.front} error={fieldErrors.front} onPick={pick('front')} />
              <FilePick side="back" file={files.back} error={fieldErrors.back} onPick={pick('back')} />
            </div>
            {progress !== null ? (
              <ProgressBar value={progress} label="Upload progress" valueText={`${progress}% uploaded`} />
            ) : null}
            <Button type="submit" block busy={busy} busyLabel="Uploading…" disabled={done}>
              Submit KYC
            </Button>
          </form>
        </Card>
      )}
    </div>
  );
}
