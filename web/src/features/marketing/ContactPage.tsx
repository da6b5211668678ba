import { useState, type FormEvent } from 'react';
import { Card, PageHeader } from '../../ui/Card';
import { EmailField, InputField, TextAreaField } from '../../ui/Field';
import { SubmitRow } from '../../ui/ScreenParts';

/** Spec §2: a form with name, email and message, not wired to any call. */
export function ContactPage() {
  const [form, setForm] = useState({ name: '', email: '', message: '' });
  function onSubmit(event: FormEvent) {
    event.preventDefault();
  }
  return (
    <div className="container section">
      <PageHeader
        eyebrow="Contact"
        title="Contact us"
        subtitle="Questions about a plan, a deposit or your account? Our team answers every message."
      />
      <div className="contact-grid">
        <Card>
          <form className="form" onSubmit={onSubmit} aria-label="Contact">
            <InputField
              label="Name"
              name="name"
              autoComplete="name"
              value={form.name}
              onChange={(e) => setForm({ ...form, name: e.target.value })}
            />
            <EmailField value={form.email} onValue={(email) => setForm({ ...form, email })} />
            <TextAreaField
              label="Message"
              name="message"
              rows={5}
              value={form.message}
              onChange={(e) => setForm({ ...form, message: e.target.value })}
            />
            <SubmitRow>Send message</SubmitRow>
          </form>
        </Card>
        <Card className="contact-aside">
          <h2 className="h4">Other ways to reach us</h2>
          <p className="muted">
            For deposits, use the support chat to arrange the wallet address before you send funds.
          </p>
          <p className="muted">
            For security concerns about your account, change your password from your profile first, then write
            to us.
          </p>
        </Card>
      </div>
    </div>
  );
}
