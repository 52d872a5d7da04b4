/**
 * A throw-away public-key infrastructure shaped like the SAT's e.firma (FIEL) one, made with the `openssl`
 * CLI in a temp dir, for the e.firma tests (issue 29; interfaces in the issue's split note):
 *
 * - a root CA "AC RAIZ PRUEBAS SAT" and an intermediate "AC DEL SERVICIO DE ADMINISTRACION TRIBUTARIA
 *   PRUEBAS" that issues the signers' certificates through `openssl ca` (so its `index.txt` database knows
 *   every certificate and which are revoked), and a delegated OCSP responder certificate (id-kp-OCSPSigning);
 * - FIEL certificates with the SAT's subject (CN and `name` = holder, O, x500UniqueIdentifier = RFC,
 *   serialNumber = CURP, emailAddress; a company's carries "company / representative" in both), the CSD
 *   variant (an OU, as the SAT's sello certificates have) and an expired variant (`openssl ca -startdate/-enddate`:
 *   OpenSSL 3.0 has no `-not_after`);
 * - the private key as the SAT ships it: PKCS#8 DER encrypted with PBES2 (PBKDF2 hmacWithSHA1, DES-EDE3-CBC);
 * - an OCSP responder and an RFC 3161 time-stamp authority, each a node:http server on 127.0.0.1 (a free port)
 *   that answers every request with the `openssl ocsp` / `openssl ts -reply` CLI. `openssl ocsp -port`
 *   binds every interface and cannot be told 127.0.0.1 in OpenSSL 3.0, so the HTTP side is node's; running
 *   `openssl ocsp -index -reqin` per request also means a revocation is seen at once, with no restart.
 *
 * Callers skip their tests when `openssl` is missing ({@link haveOpenssl}).
 */
import { execFileSync, execFile, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync, mkdirSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** True when the `openssl` CLI runs (the helper needs it; tests skip with a printed reason otherwise). */
export const haveOpenssl = spawnSync('openssl', ['version']).status === 0;

/** A signer's e.firma as the SAT hands it over: the `.cer`, the encrypted `.key` and its password. */
export interface TestSigner {
  /** The certificate, DER (the `.cer` file). */
  cer: Buffer;
  /** The private key: PKCS#8 DER, encrypted (PBES2, PBKDF2 hmacWithSHA1, DES-EDE3-CBC), as the SAT's `.key`. */
  key: Buffer;
  /** The `.key`'s password. */
  password: string;
  /** The RFC written in x500UniqueIdentifier (for a company: the company's; the representative's is `representativeRfc`). */
  rfc: string;
  /** The CURP written in serialNumber (for a company: the representative's). */
  curp: string;
  /** The holder's name (CN and `name`; for a company: the company's name). */
  name: string;
  /** Paths of the `.cer` and `.key` files (what a signer picks on the page). */
  cerPath: string;
  keyPath: string;
  /** The certificate in PEM (for `openssl ca -revoke` and friends). */
  pemPath: string;
  /** The certificate's serial, lower-case hex as `openssl ca` wrote it. */
  serialHex: string;
}

/** Options of {@link TestPki.makeSigner}. */
export interface MakeSignerOptions {
  /** Holder's name (a person), or the legal representative's when `company` is given. */
  name: string;
  /** Holder's RFC (13 characters for a person), or the legal representative's when `company` is given. */
  rfc: string;
  /** Holder's CURP, or the legal representative's when `company` is given. */
  curp: string;
  /** A company's FIEL: x500UniqueIdentifier `company.rfc / rfc`, serialNumber ` / curp`, CN/name/O = `company.name`. */
  company?: { rfc: string; name?: string };
  /** A CSD (sello digital) instead of a FIEL: the subject gets an OU (branch name), as the SAT's CSDs do. */
  csd?: boolean;
  /** Valid from 2020-01-01 to 2024-01-01 (expired now); otherwise from an hour ago for four years. */
  expired?: boolean;
  /** The `.key` password (default {@link TEST_PASSWORD}). */
  password?: string;
}

/** A running local service (OCSP responder or TSA). */
export interface LocalService {
  /** Its URL on 127.0.0.1. */
  url: string;
  /** How many requests it answered. */
  requests(): number;
  /** Closes the server (a later request gets "connection refused"). */
  stop(): Promise<void>;
}

/** Options of {@link TestPki.startOcsp}. */
export interface OcspResponderOptions {
  /**
   * Who signs the responses: `delegated` (default: the responder certificate the intermediate issued with
   * id-kp-OCSPSigning), `issuer` (the intermediate's own key) or `untrusted` (a self-signed certificate with
   * id-kp-OCSPSigning and the delegated responder's name: a client must refuse its answers).
   */
  signer?: 'delegated' | 'issuer' | 'untrusted';
  /** Milliseconds to wait before answering (to test a client's timeout). */
  delayMs?: number;
}

export interface TestPki {
  dir: string;
  /** PEM bundle: root + intermediate (what EFIRMA_TRUST_LIST points at in tests). */
  trustListPath: string;
  rootPem: string;
  /** DER of the root and of the intermediate (the signers' issuer). */
  rootDer: Buffer;
  intermediateDer: Buffer;
  /** DER of the delegated OCSP responder's certificate. */
  responderDer: Buffer;
  makeSigner(o: MakeSignerOptions): TestSigner;
  /** Marks the certificate revoked in the intermediate's `index.txt` (`openssl ca -revoke`); running responders see it at once. */
  revoke(s: TestSigner): void;
  startOcsp(o?: OcspResponderOptions): Promise<LocalService>;
  /** An RFC 3161 TSA (`openssl ts -reply`, SHA-256, self-signed TSA certificate at `certPath`: `openssl ts -verify -CAfile certPath -untrusted certPath`). */
  startTsa(): Promise<LocalService & { certPath: string }>;
  /** Deletes the temp dir (stop the services first). */
  cleanup(): void;
}

/** Password of the test `.key` files (the SAT's sample FIELs use one like it). */
export const TEST_PASSWORD = '12345678a';

/** Host of the OCSP URL written in the test certificates' authorityInfoAccess: `.invalid` never resolves, so tests must pass their responder's URL. */
export const TEST_CERT_OCSP_URL = 'http://ocsp.pruebas-sat.invalid/edofiel';

const MAX_REQUEST_BYTES = 64 * 1024;

/** Makes the CAs and the OCSP responder certificate in a new temp dir (about half a second: three RSA keys). */
export function createTestPki(): TestPki {
  const dir = mkdtempSync(join(tmpdir(), 'sello-efirma-pki-'));
  const o = (args: string[]): Buffer => execFileSync('openssl', args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  mkdirSync(join(dir, 'newcerts'));
  writeFileSync(join(dir, 'index.txt'), '');
  writeFileSync(join(dir, 'index.txt.attr'), 'unique_subject = no\n');
  // SAT serials are 20 ASCII digits read as hex bytes ("00001000000500000001"); openssl ca counts up from here.
  writeFileSync(join(dir, 'serial'), '3030303031303030303030353030303030303031\n');
  writeFileSync(join(dir, 'ca.cnf'), caConfig(dir));

  o(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'root.key', '-out', 'root.crt', '-days', '3650', '-utf8', '-config', 'ca.cnf', '-extensions', 'v3_root',
    '-subj', '/CN=AC RAIZ PRUEBAS SAT/O=Servicio de Administración Tributaria/OU=SAT-IES Authority/C=MX']);
  o(['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'int.key', '-out', 'int.csr', '-utf8', '-config', 'ca.cnf',
    '-subj', '/CN=AC DEL SERVICIO DE ADMINISTRACION TRIBUTARIA PRUEBAS/O=Servicio de Administración Tributaria/OU=Administración de Seguridad de la Información/C=MX']);
  o(['x509', '-req', '-in', 'int.csr', '-CA', 'root.crt', '-CAkey', 'root.key', '-set_serial', '0x0100', '-days', '3650', '-sha256', '-extfile', 'ca.cnf', '-extensions', 'v3_intermediate', '-out', 'int.crt']);
  o(['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'ocsp.key', '-out', 'ocsp.csr', '-utf8', '-config', 'ca.cnf', '-subj', '/CN=OCSP RESPONDER PRUEBAS SAT/O=Servicio de Administración Tributaria/C=MX']);
  o(['ca', '-batch', '-config', 'ca.cnf', '-extensions', 'ocsp_responder', '-days', '3650', '-notext', '-in', 'ocsp.csr', '-out', 'ocsp.crt']);

  const rootPem = readFileSync(join(dir, 'root.crt'), 'utf8');
  const intPem = readFileSync(join(dir, 'int.crt'), 'utf8');
  const trustListPath = join(dir, 'trust-list.pem');
  writeFileSync(trustListPath, rootPem + intPem);
  const der = (pem: string) => o(['x509', '-in', pem, '-outform', 'DER']);
  let count = 0;
  let tsaReady = false;
  let untrustedReady = false;

  const makeSigner = (opt: MakeSignerOptions): TestSigner => {
    const n = ++count;
    const base = `signer${n}-${(opt.company?.rfc ?? opt.rfc).toLowerCase()}`;
    const password = opt.password ?? TEST_PASSWORD;
    const holder = opt.company ? (opt.company.name ?? `EMPRESA ${opt.company.rfc} SA DE CV`) : opt.name;
    const uid = opt.company ? `${opt.company.rfc} / ${opt.rfc}` : opt.rfc;
    const serialNumber = opt.company ? ` / ${opt.curp}` : opt.curp;
    const email = `${opt.rfc.toLowerCase()}@pruebas.example`;
    const esc = (v: string) => v.replace(/\\/g, '\\\\').replace(/\//g, '\\/');
    const subject = [`/CN=${esc(holder)}`, `/name=${esc(holder)}`, `/O=${esc(holder)}`, ...(opt.csd ? [`/OU=${esc('SUCURSAL MATRIZ')}`] : []),
      `/x500UniqueIdentifier=${esc(uid)}`, `/serialNumber=${esc(serialNumber)}`, `/emailAddress=${email}`].join('');
    o(['req', '-new', '-newkey', 'rsa:2048', '-nodes', '-keyout', `${base}.plain.key`, '-out', `${base}.csr`, '-utf8', '-config', 'ca.cnf', '-subj', subject]);
    // Valid from an hour ago (a clock a little behind still accepts it) for four years, as the SAT's FIELs.
    const validity = opt.expired ? ['-startdate', '20200101000000Z', '-enddate', '20240101000000Z'] : ['-startdate', asn1Time(Date.now() - 3_600_000), '-enddate', asn1Time(Date.now() + 4 * 365 * 86_400_000)];
    o(['ca', '-batch', '-config', 'ca.cnf', '-preserveDN', '-extensions', opt.csd ? 'csd' : 'fiel', ...validity, '-notext', '-in', `${base}.csr`, '-out', `${base}.pem`]);
    o(['x509', '-in', `${base}.pem`, '-outform', 'DER', '-out', `${base}.cer`]);
    o(['pkcs8', '-topk8', '-in', `${base}.plain.key`, '-v2', 'des3', '-v2prf', 'hmacWithSHA1', '-outform', 'DER', '-passout', `pass:${password}`, '-out', `${base}.key`]);
    rmSync(join(dir, `${base}.plain.key`));
    const serialHex = String(o(['x509', '-in', `${base}.pem`, '-noout', '-serial'])).trim().replace(/^serial=/, '').toLowerCase();
    return {
      cer: readFileSync(join(dir, `${base}.cer`)), key: readFileSync(join(dir, `${base}.key`)), password,
      rfc: opt.company ? opt.company.rfc : opt.rfc, curp: opt.curp, name: holder,
      cerPath: join(dir, `${base}.cer`), keyPath: join(dir, `${base}.key`), pemPath: join(dir, `${base}.pem`), serialHex,
    };
  };

  const revoke = (s: TestSigner): void => {
    o(['ca', '-config', 'ca.cnf', '-revoke', s.pemPath, '-crl_reason', 'keyCompromise']);
  };

  const startOcsp = async (opt: OcspResponderOptions = {}): Promise<LocalService> => {
    const signer = opt.signer ?? 'delegated';
    if (signer === 'untrusted' && !untrustedReady) {
      o(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'impostor-ocsp.key', '-out', 'impostor-ocsp.crt', '-days', '30', '-utf8', '-config', 'ca.cnf', '-extensions', 'ocsp_self',
        '-subj', '/CN=OCSP RESPONDER PRUEBAS SAT/O=Servicio de Administración Tributaria/C=MX']);
      untrustedReady = true;
    }
    const [cert, key] = signer === 'issuer' ? ['int.crt', 'int.key'] : signer === 'untrusted' ? ['impostor-ocsp.crt', 'impostor-ocsp.key'] : ['ocsp.crt', 'ocsp.key'];
    return serve(dir, 'ocsp', 'application/ocsp-response', opt.delayMs ?? 0, (q, r) => ['ocsp', '-index', 'index.txt', '-CA', 'int.crt', '-rsigner', cert, '-rkey', key, '-rmd', 'sha256', '-nmin', '60', '-reqin', q, '-respout', r]);
  };

  const startTsa = async (): Promise<LocalService & { certPath: string }> => {
    if (!tsaReady) {
      o(['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', 'tsa.key', '-out', 'tsa.crt', '-days', '2', '-subj', '/CN=Sello test TSA',
        '-addext', 'extendedKeyUsage=critical,timeStamping', '-addext', 'basicConstraints=CA:FALSE', '-addext', 'keyUsage=critical,digitalSignature']);
      writeFileSync(join(dir, 'tsa-serial'), '01\n');
      writeFileSync(join(dir, 'tsa.cnf'), `[ tsa ]\ndefault_tsa = tsa1\n[ tsa1 ]\ndir = ${dir}\nserial = $dir/tsa-serial\ncrypto_device = builtin\nsigner_cert = $dir/tsa.crt\nsigner_key = $dir/tsa.key\nsigner_digest = sha256\ndefault_policy = 1.2.3.4.1\ndigests = sha256, sha384, sha512\naccuracy = secs:1\nordering = no\ntsa_name = no\ness_cert_id_chain = no\ness_cert_id_alg = sha256\ncerts = $dir/tsa.crt\n`);
      tsaReady = true;
    }
    const s = await serve(dir, 'tsa', 'application/timestamp-reply', 0, (q, r) => ['ts', '-reply', '-config', join(dir, 'tsa.cnf'), '-queryfile', q, '-out', r]);
    return { ...s, certPath: join(dir, 'tsa.crt') };
  };

  return {
    dir, trustListPath, rootPem,
    rootDer: der('root.crt'), intermediateDer: der('int.crt'), responderDer: der('ocsp.crt'),
    makeSigner, revoke, startOcsp, startTsa,
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** `openssl ca` time: YYYYMMDDHHMMSSZ (UTC). */
function asn1Time(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:T]/g, '').replace(/\.\d{3}Z$/, 'Z');
}

/** An HTTP server on 127.0.0.1 answering each POST body with the file an `openssl` command makes from it. */
async function serve(dir: string, name: string, contentType: string, delayMs: number, command: (queryFile: string, replyFile: string) => string[]): Promise<LocalService> {
  let requests = 0;
  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_REQUEST_BYTES) req.destroy();
      else chunks.push(c);
    });
    req.on('end', () => {
      const n = ++requests;
      const q = join(dir, `${name}-q${n}.der`);
      const r = join(dir, `${name}-r${n}.der`);
      writeFileSync(q, Buffer.concat(chunks));
      setTimeout(() => {
        // Asynchronous: the API under test may run in this same process.
        execFile('openssl', command(q, r), { cwd: dir }, (error, _stdout, stderr) => {
          if (res.destroyed) return;
          if (error) {
            res.writeHead(500, { 'content-type': 'text/plain' }).end(String(stderr));
            return;
          }
          res.writeHead(200, { 'content-type': contentType }).end(readFileSync(r));
        });
      }, delayMs);
    });
  };
  const server: Server = createServer(handle);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}/${name}`,
    requests: () => requests,
    stop: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

/** The `openssl ca`/`req` configuration: the intermediate's database and the extensions of each kind of certificate. */
function caConfig(dir: string): string {
  return `# Test e.firma PKI (test/helpers/efirma-pki.ts)
[ req ]
distinguished_name = req_dn
string_mask = utf8only
utf8 = yes
[ req_dn ]
[ ca ]
default_ca = int_ca
[ int_ca ]
dir = ${dir}
database = $dir/index.txt
new_certs_dir = $dir/newcerts
certificate = $dir/int.crt
private_key = $dir/int.key
serial = $dir/serial
default_md = sha256
default_days = 1460
policy = policy_any
unique_subject = no
preserve = yes
email_in_dn = yes
copy_extensions = none
[ policy_any ]
commonName = supplied
[ v3_root ]
basicConstraints = critical,CA:TRUE
keyUsage = critical,keyCertSign,cRLSign
subjectKeyIdentifier = hash
[ v3_intermediate ]
basicConstraints = critical,CA:TRUE,pathlen:0
keyUsage = critical,keyCertSign,cRLSign,digitalSignature
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid,issuer
[ fiel ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,nonRepudiation,dataEncipherment,keyAgreement
extendedKeyUsage = emailProtection,clientAuth
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid,issuer
authorityInfoAccess = OCSP;URI:${TEST_CERT_OCSP_URL}
[ csd ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature,nonRepudiation
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid,issuer
authorityInfoAccess = OCSP;URI:${TEST_CERT_OCSP_URL}
[ ocsp_responder ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = critical,OCSPSigning
subjectKeyIdentifier = hash
authorityKeyIdentifier = keyid,issuer
[ ocsp_self ]
basicConstraints = critical,CA:FALSE
keyUsage = critical,digitalSignature
extendedKeyUsage = critical,OCSPSigning
`;
}
