import { useState, type ChangeEvent, type FormEvent } from 'react';
import { useAppDispatch } from '../../app/hooks';
import { Form, InputField, NameField, PhoneField, TextAreaField } from '../../ui/Field';
import { profileUpdateSubmitted } from '../auth/authSlice';
import type { ProfileChanges, User } from '../auth/authTypes';
import { CountryField } from '../auth/CountryField';
import { validatePhoto } from '../auth/validation';
import { photoToDataUrl } from './imageResize';
import { Avatar } from '../../ui/Avatar';
import { SubmitRow } from '../../ui/ScreenParts';

export function ProfileTab({
  user,
  processPhoto = photoToDataUrl,
}: {
  user: User;
  processPhoto?: (file: File) => Promise<string>;
}) {
  const dispatch = useAppDispatch();
  const [form, setForm] = useState({
    name: user.name ?? '',
    phone: user.phone ?? '',
    bio: user.bio ?? '',
    country: user.country ?? '',
  });
  const set = (key: keyof typeof form) => (value: string) => setForm((f) => ({ ...f, [key]: value }));
  const [photo, setPhoto] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);

  async function onPhoto(event: ChangeEvent<HTMLInputElement>) {
    const file = event.target.files?.[0];
    if (!file) return;
    const problem = validatePhoto(file);
    if (problem) {
      setError(problem);
      setPhoto(null);
      event.target.value = '';
      return;
    }
    setError('');
    try {
      setPhoto(await processPhoto(file));
    } catch (e) {
      setError(e instanceof Error ? e.message : 'Could not process the image');
      event.target.value = '';
    }
  }

  async function onSubmit(event: FormEvent) {
    event.preventDefault();
    if (!form.name.trim()) {
      setError('Name is required');
      return;
    }
    setError('');
    const changes: ProfileChanges = {
      name: form.name.trim(),
      phone: form.phone.trim(),
      bio: form.bio,
      country: form.country,
    };
    if (photo) changes.photo = photo;
    setBusy(true);
    const result = await dispatch(profileUpdateSubmitted(changes));
    setBusy(false);
    if (profileUpdateSubmitted.fulfilled.match(result)) setPhoto(null);
  }

  const shown = photo ?? user.photo;
  return (
    <Form label="Profile" error={error} onSubmit={onSubmit}>
      <div className="photo-picker">
        <Avatar size="xl" name={user.name} photo={shown} />
        <div>
          <label className="btn btn--secondary btn--sm file-btn">
            Change photo
            <input
              type="file"
              name="photo"
              accept="image/jpeg,image/jpg,image/png"
              className="visually-hidden"
              onChange={onPhoto}
              aria-label="Profile photo"
            />
          </label>
          <p className="field__hint">JPEG, JPG or PNG. {photo ? 'New photo ready — save to apply.' : ''}</p>
        </div>
      </div>
      <div className="form__grid">
        <NameField value={form.name} onValue={set('name')} />
        <InputField
          label="Email"
          name="email"
          type="email"
          value={user.email}
          readOnly
          aria-readonly="true"
          hint="Email cannot be changed."
        />
        <PhoneField value={form.phone} onValue={set('phone')} />
        <CountryField value={form.country} onChange={set('country')} />
      </div>
      <TextAreaField label="Bio" name="bio" rows={4} value={form.bio} onValue={set('bio')} />
      <SubmitRow busy={busy} busyLabel="Saving…">
        Update profile
      </SubmitRow>
    </Form>
  );
}
