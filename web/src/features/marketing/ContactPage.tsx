import { useState, type FormEvent } from 'react';
import { Card } from '../../ui/Card';
import { MarketingPage } from './MarketingPage';
import { PAGES } from './marketingCopy';
import { EmailField, NameField, TextAreaField } from '../../ui/Field';
import { SubmitRow } from '../../ui/ScreenParts';

/** Spec §2: a form with name, email and message, not wired to any call. */
export function ContactPage() {
  const [form, setForm] = useState({ name: '', email: '', message: '' });
  const set = (key: keyof typeof form) => (value: string) => setForm((f) => ({ ...f, [key]: value }));
  function onSubmit(event: FormEvent) {
    event.preventDefault();
  }
  return (
    <MarketingPage page={PAGES.contact}>
      <div className="contact-grid">
        <Card>
          <form className="form" onSubmit={onSubmit} aria-label="Contact">
            <NameField value={form.name} onValue={set('name')} />
            <EmailField value={form.email} onValue={set('email')} />
            <TextAreaField
              label="Message"
              name="message"
              rows={5}
              value={form.message}
              onValue={set('message')}
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
    </MarketingPage>
  );
}
