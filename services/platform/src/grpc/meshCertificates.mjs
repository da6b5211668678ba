/**
 * The platform CA and a certificate per process (mutual TLS between the processes: grpc/mesh.ts), made with
 * the openssl command-line tool. Plain Node with no dependency, so `make up` (scripts/dotenv.mjs) runs it
 * before anything is installed; the standalone and `make cluster` (standalone/meshCertificates.ts) run it
 * too. Layout: `<dir>/ca.{crt,key}` (the CA) and `<dir>/<service>/{ca.crt,tls.crt,tls.key}` (a cert-manager
 * Secret's keys, what GRPC_TLS_DIR points at; compose's mesh-certs copies each folder into that service's
 * own volume). Each certificate's CN and DNS name is the service's name, ECDSA P-256, for server and client
 * authentication; folders 700, files 600. Kept files are used as they are; a missing one is made again (a
 * new CA makes every certificate again).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

/** The processes that speak gRPC: the services and the gateway (platform grpc/callers.ts MESH_SERVICES, in its order). */
export const MESH_SERVICES = [
  'gateway',
  'identity',
  'notification',
  'ledger',
  'kyc',
  'investment',
  'withdrawal',
  'support',
];

const openssl = (args) => execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });

function issue(dir, keyFile, certFile, name, ca, loopback) {
  openssl([
    'req',
    '-x509',
    '-new',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:prime256v1',
    '-nodes',
    '-keyout',
    keyFile,
    '-out',
    certFile,
    '-subj',
    `/CN=${name}`,
    '-set_serial',
    `0x${randomBytes(16).toString('hex')}`,
    ...(ca
      ? [
          '-days',
          '3650',
          '-addext',
          'basicConstraints=critical,CA:TRUE',
          '-addext',
          'keyUsage=critical,keyCertSign,cRLSign',
        ]
      : [
          '-days',
          '825',
          '-CA',
          join(dir, 'ca.crt'),
          '-CAkey',
          join(dir, 'ca.key'),
          '-addext',
          `subjectAltName=DNS:${name}${loopback ? ',DNS:localhost,IP:127.0.0.1' : ''}`,
          '-addext',
          'basicConstraints=critical,CA:FALSE',
          '-addext',
          'keyUsage=critical,digitalSignature,keyEncipherment',
          '-addext',
          'extendedKeyUsage=serverAuth,clientAuth',
        ]),
  ]);
  chmodSync(keyFile, 0o600);
  chmodSync(certFile, 0o600);
}

/**
 * The CA of `dir` and the certificate of each of `names`, made when missing. With `loopback`, each
 * certificate also names localhost and 127.0.0.1 (the processes of one machine listen on loopback).
 * @returns {{ dir: string, made: string[] }} the names whose certificate was made now ('ca' for the CA)
 */
export function ensureMeshCertificates(dir, names = MESH_SERVICES, { loopback = false } = {}) {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  const made = [];
  const caKey = join(dir, 'ca.key');
  const caCert = join(dir, 'ca.crt');
  const freshCa = !existsSync(caKey) || !existsSync(caCert);
  if (freshCa) {
    issue(dir, caKey, caCert, 'meridian-platform-ca', true, false);
    made.push('ca');
  }
  for (const name of names) {
    const own = join(dir, name);
    mkdirSync(own, { recursive: true, mode: 0o700 });
    chmodSync(own, 0o700);
    const key = join(own, 'tls.key');
    const cert = join(own, 'tls.crt');
    if (freshCa || !existsSync(key) || !existsSync(cert)) {
      issue(dir, key, cert, name, false, loopback);
      made.push(name);
    }
    copyFileSync(caCert, join(own, 'ca.crt'));
    chmodSync(join(own, 'ca.crt'), 0o600);
  }
  return { dir, made };
}
