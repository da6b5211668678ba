import { PageHeader } from '../../ui/Card';

const SECTIONS = [
  {
    title: 'What we collect',
    text: 'Your name, email, phone, country, profile details, identity documents you upload, and a record of your deposits, investments, withdrawals and logins.',
  },
  {
    title: 'Why we collect it',
    text: 'To run your account, verify your identity, review money movements, protect you from fraud and meet our legal obligations.',
  },
  {
    title: 'Cookies',
    text: 'We use strictly necessary cookies to keep you logged in and to protect forms against forgery. We do not use them for advertising.',
  },
  {
    title: 'Who we share it with',
    text: 'Only with service providers that help us run Meridian (for example email delivery), under contract, and with authorities where the law requires it.',
  },
  {
    title: 'How long we keep it',
    text: 'For as long as your account is open and afterwards for the period the law requires for financial records.',
  },
  {
    title: 'Your rights',
    text: 'You can see and correct your profile at any time, and you can ask us for a copy of your data or its deletion where the law allows.',
  },
];

export function PrivacyPolicyPage() {
  return (
    <div className="container container--narrow section">
      <PageHeader
        eyebrow="Legal"
        title="Privacy policy"
        subtitle="How Meridian handles your personal data."
      />
      <div className="card prose">
        {SECTIONS.map((s) => (
          <section key={s.title}>
            <h2 className="h4">{s.title}</h2>
            <p>{s.text}</p>
          </section>
        ))}
      </div>
    </div>
  );
}
