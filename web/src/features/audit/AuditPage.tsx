import { useState, type FormEvent } from 'react';
import { errorMessage } from '../../app/errors';
import { Button } from '../../ui/Button';
import { EmptyState, PageHeader } from '../../ui/Card';
import { FormError, InputField, SelectField } from '../../ui/Field';
import { formatDateTime } from '../../ui/dates';
import { LoadingBlock } from '../../ui/Spinner';
import { AUDIT_ACTIONS, auditCsvUrl, NO_FILTERS, type AuditFilters } from './auditApi';
import { useAuditTrailInfiniteQuery } from './auditTrailApi';
import './audit.css';

/** "DepositConfirmed" -> "Deposit confirmed". */
export const actionLabel = (action: string) =>
  action.replace(/([a-z])([A-Z])/g, '$1 $2').replace(/ (\w)/g, (_m, c: string) => ` ${c.toLowerCase()}`);

function Who({ email, id }: { email: string; id: string }) {
  if (!id) return <span className="muted">—</span>;
  return (
    <span className="audit__who" title={id}>
      {email || id}
    </span>
  );
}

/** /admin/audit: every admin action and every action taken while impersonating, filtered, paged, exported. */
export function AuditPage() {
  const [form, setForm] = useState<AuditFilters>(NO_FILTERS);
  const [applied, setApplied] = useState<AuditFilters>(NO_FILTERS);
  // the entries of the filters last applied stay shown while those of new filters load
  const trail = useAuditTrailInfiniteQuery(applied);
  const entries = trail.data?.pages.flatMap((p) => p.entries) ?? [];
  const loading = trail.isFetching;
  const error = trail.isError ? errorMessage(trail.error) : '';

  function onSubmit(event: FormEvent) {
    event.preventDefault();
    setApplied({ ...form });
  }

  const set = (field: keyof AuditFilters) => (e: { target: { value: string } }) =>
    setForm((f) => ({ ...f, [field]: e.target.value }));

  return (
    <div className="container section audit">
      <PageHeader
        eyebrow="Admin"
        title="Audit trail"
        subtitle="Every admin action and every action taken while impersonating: who, on whose behalf, what, when and from which address."
        actions={
          <a className="btn btn--secondary btn--sm" href={auditCsvUrl(applied)} download>
            Export CSV
          </a>
        }
      />

      <form className="card audit__filters" onSubmit={onSubmit} aria-label="Audit filters" noValidate>
        <InputField label="Admin" placeholder="Email or id" value={form.admin} onChange={set('admin')} />
        <InputField label="User" placeholder="Email or id" value={form.user} onChange={set('user')} />
        <SelectField label="Action" value={form.action} onChange={set('action')}>
          <option value="">All actions</option>
          {AUDIT_ACTIONS.map((a) => (
            <option key={a} value={a}>
              {actionLabel(a)}
            </option>
          ))}
        </SelectField>
        <InputField label="From" type="date" value={form.from} onChange={set('from')} />
        <InputField label="To" type="date" value={form.to} onChange={set('to')} />
        <div className="audit__filter-actions">
          <Button type="submit" size="sm">
            Apply filters
          </Button>
          <Button
            type="button"
            size="sm"
            variant="secondary"
            onClick={() => {
              setForm(NO_FILTERS);
              setApplied(NO_FILTERS);
            }}
          >
            Clear
          </Button>
        </div>
      </form>

      {error ? <FormError message={error} /> : null}

      {loading && entries.length === 0 ? (
        <LoadingBlock label="Loading the audit trail…" />
      ) : entries.length === 0 ? (
        <EmptyState title="No entries match these filters" />
      ) : (
        <div className="card audit__table-wrap">
          <table className="audit__table" aria-label="Audit entries">
            <thead>
              <tr>
                <th scope="col">When</th>
                <th scope="col">Admin</th>
                <th scope="col">On behalf of / user</th>
                <th scope="col">Action</th>
                <th scope="col">Address</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id}>
                  <td data-label="When">
                    <time dateTime={e.at}>{formatDateTime(e.at)}</time>
                  </td>
                  <td data-label="Admin">
                    <Who email={e.adminEmail} id={e.adminId} />
                  </td>
                  <td data-label="User">
                    <Who email={e.userEmail} id={e.userId} />
                    {e.impersonating ? (
                      <span className="badge badge--warning audit__badge">impersonating</span>
                    ) : null}
                  </td>
                  <td data-label="Action">
                    <div>
                      <span className="audit__action" title={e.details}>
                        {actionLabel(e.action)}
                      </span>
                      <span className="audit__service">{e.service}</span>
                    </div>
                  </td>
                  <td data-label="Address">
                    {e.address ? (
                      <span className="audit__address">{e.address}</span>
                    ) : (
                      <span className="muted">—</span>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
          {trail.hasNextPage ? (
            <div className="audit__more">
              <Button
                size="sm"
                variant="secondary"
                busy={loading}
                busyLabel="Loading…"
                onClick={() => void trail.fetchNextPage()}
              >
                Load more
              </Button>
            </div>
          ) : null}
        </div>
      )}
    </div>
  );
}
