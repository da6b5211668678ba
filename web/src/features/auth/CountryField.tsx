import { InputField, SelectField } from '../../ui/Field';
import { useCountries } from './useCountries';
import { MESSAGES } from './validation';

export function CountryField({ value, onChange }: { value: string; onChange: (value: string) => void }) {
  const { countries, state } = useCountries();
  if (state === 'failed') {
    return (
      <InputField
        label="Country"
        name="country"
        autoComplete="country-name"
        value={value}
        onValue={onChange}
        hint={MESSAGES.countriesFailed}
      />
    );
  }
  const known = countries.some((c) => c.name === value);
  return (
    <SelectField
      label="Country"
      name="country"
      value={value}
      onValue={onChange}
      disabled={state === 'loading'}
      autoComplete="country-name"
    >
      <option value="">{state === 'loading' ? 'Loading countries…' : 'Select your country'}</option>
      {value && !known ? <option value={value}>{value}</option> : null}
      {countries.map((c) => (
        <option key={c.code} value={c.name}>
          {c.name}
        </option>
      ))}
    </SelectField>
  );
}
