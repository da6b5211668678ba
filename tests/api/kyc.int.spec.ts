/**
 * KYC against the standalone target started exactly as `make start` starts it (its own DATA_DIR):
 * a verified user uploads front and back (multipart, a real PNG) → the files are under DATA_DIR/kyc,
 * named by the service, never by the user → restart: the case and the documents survive → the admin
 * sees it in kyc/pending, views it, approves → getUser says Approved → the emails are in the mailbox.
 */
import { createHash } from 'node:crypto';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { HttpSession, linkWith, listMail, waitForMail } from '@meridian/gateway/testing/httpSession';
import { KYC_FRONT, uploadKyc, waitForKycStatus } from '@meridian/gateway/testing/kyc';
import { describeTargetJourney, loginWithEmailedCode, restartableTarget } from '../support/apiJourney.js';
import { stopTarget } from '../support/standalone.js';

const ADMIN_EMAIL = 'kyc-journey-admin@example.com';
const ADMIN_PASSWORD = 'Kyc-Journey-Admin-1!';
const kycTarget = restartableTarget('kyc-journey', {
  adminEmail: ADMIN_EMAIL,
  adminPassword: ADMIN_PASSWORD,
});
const { dataDir, start: startTarget } = kycTarget;

describeTargetJourney(
  kycTarget,
  {
    title: 'KYC against `make start`',
    journey: 'upload, files under DATA_DIR/kyc, restart, admin review and approval, emails',
    timeout: 120_000,
  },
  async (firstStart) => {
    let target = firstStart;
    const email = `kyc.journey.${Date.now()}@example.com`;
    const user = new HttpSession(target.url);
    const reg = await user.post('/api/users/register', {
      name: 'Journey Kyc',
      email,
      password: 'Journey-Passw0rd',
      phone: '+15550100',
      country: 'Germany',
    });
    expect(reg.status).toBe(201);
    const userId = reg.body._id as string;
    const verifyMail = await waitForMail(target.url, email, (m) =>
      m.links.some((l) => l.includes('/verify/')),
    );
    expect((await user.patch(`/api/users/verifyUser/${linkWith(verifyMail, '/verify/').token}`)).status).toBe(
      200,
    );

    const uploaded = await uploadKyc(user, {
      frontName: 'my passport front.png',
      backName: 'my passport back.png',
    });
    expect(uploaded.status).toBe(200);
    expect(uploaded.body).toEqual({ message: 'KYC documents uploaded successfully!' });

    // stored by the service under DATA_DIR/kyc/<sha256(userId)>/<uuid>.bin (+ .json), not by the user's names
    const folder = join(dataDir, 'kyc', createHash('sha256').update(userId, 'utf8').digest('hex'));
    const files = readdirSync(folder).sort();
    expect(files.filter((f) => f.endsWith('.bin'))).toHaveLength(2);
    expect(files.every((f) => /^[0-9a-f-]{36}\.(bin|json)$/.test(f))).toBe(true);
    await waitForKycStatus(user, 'Pending', { timeoutMs: 10_000 });

    // restart: the case and the documents survive
    expect(await stopTarget(target)).toBe(0);
    target = await startTarget();
    const admin = new HttpSession(target.url);
    expect(
      (await admin.post('/api/users/login', { email: ADMIN_EMAIL, password: ADMIN_PASSWORD })).status,
    ).toBe(400);
    expect((await loginWithEmailedCode(admin, ADMIN_EMAIL)).status).toBe(200);
    const pending = await admin.get('/api/users/kyc/pending');
    expect(pending.status).toBe(200);
    const item = (pending.body.pendingUsers as Array<Record<string, any>>).find((p) => p._id === userId);
    expect(item).toMatchObject({ name: 'Journey Kyc', email, kycStatus: 'Pending' });
    const doc = await fetch(new URL(item!.kyc.frontDoc as string, target.url), {
      headers: { cookie: admin.cookieHeader() },
    });
    expect(doc.status).toBe(200);
    expect(doc.headers.get('x-content-type-options')).toBe('nosniff');
    expect(Buffer.from(await doc.arrayBuffer()).equals(KYC_FRONT)).toBe(true);

    const approved = await admin.patch(`/api/users/kyc/approve/${userId}`);
    expect(approved.status).toBe(200);
    expect(approved.body).toEqual({ message: 'KYC approved successfully!' });
    const user2 = new HttpSession(target.url);
    for (const [k, v] of user.cookies) if (k === 'meridian_device') user2.cookies.set(k, v);
    expect((await user2.post('/api/users/login', { email, password: 'Journey-Passw0rd' })).status).toBe(200);
    await waitForKycStatus(user2, 'Approved', { timeoutMs: 10_000 });

    await waitForMail(target.url, email, (m) => m.subject === 'Your identity is verified');
    await waitForMail(
      target.url,
      ADMIN_EMAIL,
      (m) => m.subject === 'New KYC documents to review' && m.text.includes(email),
    );
    const adminKyc = (await listMail(target.url, ADMIN_EMAIL)).filter((m) => m.text.includes(email));
    expect(adminKyc.map((m) => m.subject)).toEqual(['New KYC documents to review']);
  },
);
