import { MarketingPage } from './MarketingPage';
import { PAGES, PRIVACY_SECTIONS } from './marketingCopy';

export function PrivacyPolicyPage() {
  return (
    <MarketingPage page={PAGES.privacy} narrow>
      <div className="card prose">
        {PRIVACY_SECTIONS.map((s) => (
          <section key={s.title}>
            <h2 className="h4">{s.title}</h2>
            <p>{s.text}</p>
          </section>
        ))}
      </div>
    </MarketingPage>
  );
}
