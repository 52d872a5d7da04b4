/**
 * The servers of the scaled-out profile, installed and run by the project's own files (issue 27):
 * PostgreSQL and Redis from Debian's packages, Temporal's development server and MinIO built with
 * `go install` from the Go module proxy, a single-node KRaft Kafka broker from Maven Central's jars. Versions are pinned below; builds are cached per machine under
 * `SELLO_ENGINES_CACHE` (default `~/.cache/sello-engines`), server data, logs and pid files under
 * `SELLO_ENGINES_STATE` (default `<cache>/run`).
 *
 *   npm run engines -- up [server...]      install what is missing, start, wait until each answers, print
 *                                          the profile as `export NAME=value` lines (stdout; progress on stderr)
 *   npm run engines -- up --connections    the same, printing only the servers' addresses and credentials
 *   npm run engines -- down [server...]    stop them (SIGTERM, then SIGKILL after 20 s)
 *   npm run engines -- install [server...] fetch and build only
 *   npm run engines -- env [--connections] print the export lines without starting anything
 *   npm run engines -- status              one line per server: running or not, pid, address
 *
 * Servers: postgres, redis, temporal, kafka, minio. Every one binds to 127.0.0.1. Ports can be moved with
 * `SELLO_PG_PORT`, `SELLO_REDIS_PORT`, `SELLO_TEMPORAL_PORT`, `SELLO_TEMPORAL_UI_PORT`, `SELLO_KAFKA_PORT`,
 * `SELLO_KAFKA_CONTROLLER_PORT`, `SELLO_MINIO_PORT`, `SELLO_MINIO_CONSOLE_PORT`. A port already answered by
 * a process this script did not start is an error (never silently someone else's server). Exit code 1
 * with a message naming the server and its log when one does not come up.
 *
 * Node built-ins only: it runs right after `npm ci` and needs nothing else from npm.
 */
import { spawn, spawnSync, type SpawnSyncOptions } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync, chmodSync } from 'node:fs';
import { connect } from 'node:net';
import { homedir, userInfo } from 'node:os';
import path from 'node:path';

// --- pinned versions ---------------------------------------------------------------------------------
/** Temporal CLI (its `server start-dev` embeds the server and the Web UI). Later tags carry a `replace` directive that `go install pkg@version` refuses. */
const TEMPORAL_CLI = { module: 'github.com/temporalio/cli/cmd/temporal', version: 'v1.5.1' };
/** MinIO at its last commit (2026-02-12; the repository is archived, no release tags as Go versions). */
const MINIO = { module: 'github.com/minio/minio', version: 'v0.0.0-20260212201848-7aac2a2c5b7c' };
/** Kafka broker (KRaft) from Maven Central; see docs/operations.md for why 4.1 and not 3.9. */
const KAFKA = { version: '4.1.1', log4j: '2.24.3' };

/** Search attributes the Temporal workflow adapter writes (infra/workflows/temporal). */
export const TEMPORAL_SEARCH_ATTRIBUTES = ['SelloTenantId=Keyword'];
const MINIO_USER = 'sello-minio';
const MINIO_PASSWORD = 'sello-minio-secret';

const CACHE = process.env.SELLO_ENGINES_CACHE ?? path.join(homedir(), '.cache', 'sello-engines');
const STATE = process.env.SELLO_ENGINES_STATE ?? path.join(CACHE, 'run');
const LOGS = path.join(STATE, 'logs');
const PIDS = path.join(STATE, 'pids');
const isRoot = process.getuid?.() === 0;

const port = (name: string, fallback: number): number => {
  const v = process.env[name];
  if (v === undefined || v === '') return fallback;
  const n = Number(v);
  if (!Number.isInteger(n) || n <= 0 || n > 65535) fail(`${name}=${v} is not a TCP port`);
  return n;
};
const PORTS = {
  pg: port('SELLO_PG_PORT', 5432),
  redis: port('SELLO_REDIS_PORT', 6379),
  temporal: port('SELLO_TEMPORAL_PORT', 7233),
  temporalUi: port('SELLO_TEMPORAL_UI_PORT', 8233),
  kafka: port('SELLO_KAFKA_PORT', 9092),
  kafkaController: port('SELLO_KAFKA_CONTROLLER_PORT', 9093),
  minio: port('SELLO_MINIO_PORT', 9000),
  minioConsole: port('SELLO_MINIO_CONSOLE_PORT', 9001),
};

// --- small helpers -----------------------------------------------------------------------------------
function say(message: string): void {
  process.stderr.write(`engines: ${message}\n`);
}
function fail(message: string): never {
  process.stderr.write(`engines: error: ${message}\n`);
  process.exit(1);
}
function run(cmd: string, args: string[], options: SpawnSyncOptions & { what: string }): string {
  const r = spawnSync(cmd, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, ...options });
  if (r.error) fail(`${options.what}: ${r.error.message}`);
  if (r.status !== 0) fail(`${options.what} failed (exit ${r.status}):\n${`${r.stdout ?? ''}${r.stderr ?? ''}`.trim().split('\n').slice(-25).join('\n')}`);
  return String(r.stdout ?? '');
}
function which(cmd: string): string | null {
  const r = spawnSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' });
  return r.status === 0 ? r.stdout.trim() : null;
}
function tcpOpen(p: number, host = '127.0.0.1'): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ port: p, host });
    s.setTimeout(1000);
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('timeout', () => (s.destroy(), resolve(false)));
    s.once('error', () => resolve(false));
  });
}
async function httpOk(url: string): Promise<boolean> {
  try {
    const r = await fetch(url, { signal: AbortSignal.timeout(2000) });
    return r.ok;
  } catch {
    return false;
  }
}
async function waitUntil(what: string, check: () => Promise<boolean> | boolean, timeoutMs: number, log?: string): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  const tail = log && existsSync(log) ? `\n--- last lines of ${log}:\n${readFileSync(log, 'utf8').split('\n').slice(-30).join('\n')}` : '';
  fail(`${what} did not come up within ${Math.round(timeoutMs / 1000)} s${tail}`);
}
function pidFile(name: string): string {
  return path.join(PIDS, `${name}.pid`);
}
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
function ownPid(name: string): number | null {
  const f = pidFile(name);
  if (!existsSync(f)) return null;
  const pid = Number(readFileSync(f, 'utf8').trim());
  return Number.isInteger(pid) && pid > 0 && alive(pid) ? pid : null;
}
/** Starts `cmd` detached (it outlives this script), output to its log file, pid recorded. */
function daemon(name: string, cmd: string, args: string[], env: Record<string, string> = {}, cwd = STATE): number {
  const log = path.join(LOGS, `${name}.log`);
  const fd = openSync(log, 'a');
  const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, detached: true, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  if (child.pid === undefined) fail(`${name}: could not start ${cmd}`);
  child.unref();
  writeFileSync(pidFile(name), `${child.pid}\n`);
  return child.pid;
}
async function stopPid(name: string, pid: number): Promise<void> {
  try {
    process.kill(-pid, 'SIGTERM'); // the process group: a wrapper's children go too
  } catch {
    try {
      process.kill(pid, 'SIGTERM');
    } catch {
      /* gone */
    }
  }
  const deadline = Date.now() + 20_000;
  while (alive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  if (alive(pid)) {
    say(`${name} did not stop on SIGTERM in 20 s: SIGKILL`);
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      process.kill(pid, 'SIGKILL');
    }
  }
}
/** Refuses a port that something other than our `name` server answers. */
async function portFree(name: string, p: number): Promise<void> {
  if (await tcpOpen(p)) fail(`${name}: port ${p} on 127.0.0.1 is already in use by a process this script did not start; stop it or set the port variable (see scripts/engines.ts)`);
}
function goInstall(what: { module: string; version: string }, binary: string): string {
  const dir = path.join(CACHE, `${binary}-${what.version}`);
  const bin = path.join(dir, binary);
  if (existsSync(bin)) return bin;
  if (!which('go')) fail(`${binary}: the go command is needed to build it (Go 1.24 or newer)`);
  say(`${binary}: go install ${what.module}@${what.version} (first time on this machine; a few minutes)`);
  const t0 = Date.now();
  mkdirSync(dir, { recursive: true });
  run('go', ['install', `${what.module}@${what.version}`], {
    what: `go install ${what.module}@${what.version}`,
    env: { ...process.env, GOBIN: dir, GOFLAGS: '-buildvcs=false', CGO_ENABLED: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  say(`${binary}: built in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return bin;
}
/** Resolves Maven artifacts with their runtime dependencies into `<cache>/<name>/libs` (cached). */
function mavenLibs(name: string, artifacts: string[]): string {
  const dir = path.join(CACHE, name);
  const libs = path.join(dir, 'libs');
  if (existsSync(path.join(dir, '.complete'))) return libs;
  if (!which('mvn')) fail(`${name}: Maven (mvn) is needed to fetch it from Maven Central`);
  if (!which('java')) fail(`${name}: Java 17 or newer is needed to run it`);
  say(`${name}: fetching ${artifacts.join(', ')} and their dependencies from Maven Central`);
  const t0 = Date.now();
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const deps = artifacts
    .map((a) => {
      const [g, n, v] = a.split(':');
      return `<dependency><groupId>${g}</groupId><artifactId>${n}</artifactId><version>${v}</version></dependency>`;
    })
    .join('');
  writeFileSync(
    path.join(dir, 'pom.xml'),
    `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion><groupId>sello</groupId><artifactId>${name}</artifactId><version>1</version><packaging>pom</packaging><dependencies>${deps}</dependencies></project>\n`,
  );
  run('mvn', ['-q', '-B', 'dependency:copy-dependencies', `-DoutputDirectory=${libs}`, '-DincludeScope=runtime'], { what: `${name}: mvn dependency:copy-dependencies`, cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  writeFileSync(path.join(dir, '.complete'), `${new Date().toISOString()}\n`);
  say(`${name}: fetched in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  return libs;
}
function aptInstall(pkgs: string[]): void {
  const missing = pkgs.filter((p) => spawnSync('dpkg', ['-s', p], { stdio: 'ignore' }).status !== 0);
  if (missing.length === 0) return;
  if (!isRoot) fail(`Debian packages missing: ${missing.join(' ')} (install them: sudo apt-get install ${missing.join(' ')})`);
  say(`apt-get install ${missing.join(' ')}`);
  run('apt-get', ['update', '-qq'], { what: 'apt-get update', stdio: ['ignore', 'pipe', 'pipe'] });
  run('apt-get', ['install', '-y', '-qq', ...missing], { what: `apt-get install ${missing.join(' ')}`, env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' }, stdio: ['ignore', 'pipe', 'pipe'] });
}

// --- the servers -------------------------------------------------------------------------------------
interface Server {
  name: string;
  /** Fetches or builds what it needs (idempotent, cached). */
  install(): void;
  /** Starts it and waits until it answers; nothing when it already runs. */
  start(): Promise<void>;
  stop(): Promise<void>;
  /** Its settings as environment variables. `profile` ones select the adapters of the scaled-out profile. */
  env(): { connections: Record<string, string>; profile: Record<string, string> };
  address(): string;
}

/**
 * The profile's `PRIVACY_MASTER_KEY` (64 hex characters): a shared event store refuses to start without one
 * key for every process (docs/operations.md). Generated once into `STATE/privacy-master.key` (mode 0600), so
 * every shell that exports the profile gets the same key.
 */
function profileMasterKey(): string {
  const file = path.join(STATE, 'privacy-master.key');
  if (!existsSync(file)) {
    mkdirSync(STATE, { recursive: true });
    try {
      writeFileSync(file, `${randomBytes(32).toString('hex')}\n`, { mode: 0o600, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
  }
  return readFileSync(file, 'utf8').trim();
}

function pgBin(tool: string): string {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base) ? readdirSync(base).filter((v) => existsSync(path.join(base, v, 'bin', tool))).sort((a, b) => Number(b) - Number(a)) : [];
  if (versions.length === 0) fail(`postgres: ${tool} not found under ${base} (Debian package postgresql)`);
  return path.join(base, versions[0]!, 'bin', tool);
}
/** PostgreSQL refuses to run as root: as root the cluster belongs to the `postgres` user, in its home. */
function pgDataDir(): string {
  if (!isRoot) return path.join(STATE, 'postgres');
  const home = spawnSync('getent', ['passwd', 'postgres'], { encoding: 'utf8' }).stdout.split(':')[5]?.trim();
  if (!home) fail('postgres: running as root, but there is no postgres user to run the server as');
  return path.join(home, 'sello-engines');
}
/** The server's log: beside its data directory when it runs as `postgres` (it cannot write to our state directory). */
function pgLogFile(): string {
  return isRoot ? `${pgDataDir()}.log` : path.join(LOGS, 'postgres.log');
}
function asPgOwner(cmd: string, args: string[]): [string, string[]] {
  return isRoot ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args];
}
const postgres: Server = {
  name: 'postgres',
  install() {
    aptInstall(['postgresql']);
  },
  async start() {
    const data = pgDataDir();
    if (await pgReady()) {
      if (existsSync(path.join(data, 'postmaster.pid'))) return say(`postgres: already running on ${this.address()}`);
      await portFree('postgres', PORTS.pg);
    }
    if (!existsSync(path.join(data, 'PG_VERSION'))) {
      mkdirSync(data, { recursive: true });
      if (isRoot) run('chown', ['postgres:postgres', data], { what: 'chown postgres data directory' });
      const [c, a] = asPgOwner(pgBin('initdb'), ['-D', data, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8']);
      run(c, a, { what: 'postgres: initdb', stdio: ['ignore', 'pipe', 'pipe'] });
    }
    const log = pgLogFile();
    const [c, a] = asPgOwner(pgBin('pg_ctl'), ['-D', data, '-l', log, '-w', '-t', '60', '-o', `-c listen_addresses=127.0.0.1 -p ${PORTS.pg} -k /tmp -c fsync=off -c max_connections=300`, 'start']);
    run(c, a, { what: 'postgres: pg_ctl start', stdio: ['ignore', 'pipe', 'pipe'] });
    await waitUntil('postgres', pgReady, 60_000, log);
    const psql = (sql: string) => run(pgBin('psql'), ['-h', '127.0.0.1', '-p', String(PORTS.pg), '-U', 'postgres', '-d', 'postgres', '-tAc', sql], { what: `postgres: ${sql}` }).trim();
    if (psql("SELECT 1 FROM pg_roles WHERE rolname = 'sello'") !== '1') psql('CREATE ROLE sello SUPERUSER LOGIN');
    if (psql("SELECT 1 FROM pg_database WHERE datname = 'sello'") !== '1') psql('CREATE DATABASE sello OWNER sello');
  },
  async stop() {
    const data = pgDataDir();
    if (!existsSync(path.join(data, 'postmaster.pid'))) return;
    const [c, a] = asPgOwner(pgBin('pg_ctl'), ['-D', data, '-m', 'fast', '-w', 'stop']);
    spawnSync(c, a, { stdio: 'ignore' });
  },
  env() {
    return { connections: { DATABASE_URL: `postgres://sello@127.0.0.1:${PORTS.pg}/sello` }, profile: { EVENT_STORE: 'postgres', READ_MODELS: 'sqlite', PRIVACY_MASTER_KEY: profileMasterKey() } };
  },
  address: () => `127.0.0.1:${PORTS.pg}`,
};
function pgReady(): boolean {
  return spawnSync(pgBin('pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(PORTS.pg)]).status === 0;
}

function redisPing(): Promise<boolean> {
  return new Promise((resolve) => {
    const s = connect({ port: PORTS.redis, host: '127.0.0.1' });
    let got = '';
    s.setTimeout(1000);
    s.once('connect', () => s.write('PING\r\n'));
    s.on('data', (d) => {
      got += d.toString();
      if (got.includes('\r\n')) (s.destroy(), resolve(got.startsWith('+PONG')));
    });
    s.once('timeout', () => (s.destroy(), resolve(false)));
    s.once('error', () => resolve(false));
  });
}
const redis: Server = {
  name: 'redis',
  install() {
    aptInstall(['redis-server']);
  },
  async start() {
    if (ownPid('redis') && (await redisPing())) return say(`redis: already running on ${this.address()}`);
    await portFree('redis', PORTS.redis);
    const dir = path.join(STATE, 'redis');
    mkdirSync(dir, { recursive: true });
    daemon('redis', which('redis-server') ?? '/usr/bin/redis-server', ['--bind', '127.0.0.1', '--port', String(PORTS.redis), '--save', '', '--appendonly', 'no', '--dir', dir, '--protected-mode', 'yes', '--maxclients', '2000']);
    await waitUntil('redis', redisPing, 30_000, path.join(LOGS, 'redis.log'));
  },
  async stop() {
    const pid = ownPid('redis');
    if (pid) await stopPid('redis', pid);
  },
  env() {
    return { connections: { REDIS_URL: `redis://127.0.0.1:${PORTS.redis}` }, profile: { RATE_LIMITER: 'redis' } };
  },
  address: () => `127.0.0.1:${PORTS.redis}`,
};

function temporalCli(): string {
  return path.join(CACHE, `temporal-${TEMPORAL_CLI.version}`, 'temporal');
}
const temporal: Server = {
  name: 'temporal',
  install() {
    goInstall(TEMPORAL_CLI, 'temporal');
  },
  async start() {
    if (ownPid('temporal') && (await temporalReady())) return say(`temporal: already running on ${this.address()}, UI ${this.env().connections.TEMPORAL_UI_URL}`);
    await portFree('temporal', PORTS.temporal);
    await portFree('temporal UI', PORTS.temporalUi);
    const dir = path.join(STATE, 'temporal');
    mkdirSync(dir, { recursive: true });
    daemon('temporal', temporalCli(), [
      'server', 'start-dev',
      '--ip', '127.0.0.1',
      '--port', String(PORTS.temporal),
      '--ui-ip', '127.0.0.1',
      '--ui-port', String(PORTS.temporalUi),
      '--db-filename', path.join(dir, 'temporal.db'),
      '--namespace', 'default',
      ...TEMPORAL_SEARCH_ATTRIBUTES.flatMap((a) => ['--search-attribute', a]),
      '--log-format', 'json',
      '--log-level', 'warn',
    ]);
    await waitUntil('temporal', temporalReady, 90_000, path.join(LOGS, 'temporal.log'));
  },
  async stop() {
    const pid = ownPid('temporal');
    if (pid) await stopPid('temporal', pid);
  },
  env() {
    return {
      connections: {
        TEMPORAL_ADDRESS: `127.0.0.1:${PORTS.temporal}`,
        TEMPORAL_NAMESPACE: 'default',
        TEMPORAL_UI_URL: `http://127.0.0.1:${PORTS.temporalUi}`,
        TEMPORAL_CLI_PATH: temporalCli(),
      },
      profile: { WORKFLOWS: 'temporal' },
    };
  },
  address: () => `127.0.0.1:${PORTS.temporal}`,
};
async function temporalReady(): Promise<boolean> {
  if (!(await tcpOpen(PORTS.temporal)) || !(await httpOk(`http://127.0.0.1:${PORTS.temporalUi}/`))) return false;
  // The frontend answers before the namespace and search attributes are registered: ask for them.
  const r = spawnSync(temporalCli(), ['operator', 'search-attribute', 'list', '--address', `127.0.0.1:${PORTS.temporal}`, '--namespace', 'default'], { encoding: 'utf8', timeout: 10_000 });
  return r.status === 0 && TEMPORAL_SEARCH_ATTRIBUTES.every((a) => r.stdout.includes(a.split('=')[0]!));
}

function kafkaDir(): string {
  return path.join(CACHE, `kafka-${KAFKA.version}`);
}
const kafka: Server = {
  name: 'kafka',
  install() {
    mavenLibs(`kafka-${KAFKA.version}`, [`org.apache.kafka:kafka_2.13:${KAFKA.version}`, `org.apache.logging.log4j:log4j-slf4j-impl:${KAFKA.log4j}`]);
  },
  async start() {
    if (ownPid('kafka') && (await kafkaReady())) return say(`kafka: already running on ${this.address()}`);
    await portFree('kafka', PORTS.kafka);
    await portFree('kafka controller', PORTS.kafkaController);
    const dir = path.join(STATE, 'kafka');
    const data = path.join(dir, 'data');
    mkdirSync(dir, { recursive: true });
    const props = path.join(dir, 'server.properties');
    writeFileSync(
      props,
      [
        '# single-node KRaft broker and controller, written by scripts/engines.ts',
        'process.roles=broker,controller',
        'node.id=1',
        `controller.quorum.voters=1@127.0.0.1:${PORTS.kafkaController}`,
        `listeners=PLAINTEXT://127.0.0.1:${PORTS.kafka},CONTROLLER://127.0.0.1:${PORTS.kafkaController}`,
        `advertised.listeners=PLAINTEXT://127.0.0.1:${PORTS.kafka}`,
        'controller.listener.names=CONTROLLER',
        'inter.broker.listener.name=PLAINTEXT',
        'listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT',
        `log.dirs=${data}`,
        'num.partitions=4',
        'offsets.topic.replication.factor=1',
        'transaction.state.log.replication.factor=1',
        'transaction.state.log.min.isr=1',
        'share.coordinator.state.topic.replication.factor=1',
        'share.coordinator.state.topic.min.isr=1',
        'group.initial.rebalance.delay.ms=0',
        'auto.create.topics.enable=true',
        '',
      ].join('\n'),
    );
    const log4j = path.join(dir, 'log4j2.properties');
    writeFileSync(
      log4j,
      ['status = warn', 'appender.out.type = Console', 'appender.out.name = out', 'appender.out.layout.type = PatternLayout', 'appender.out.layout.pattern = [%d] %p %m (%c)%n', 'rootLogger.level = info', 'rootLogger.appenderRef.out.ref = out', 'logger.kafka.name = kafka', 'logger.kafka.level = warn', 'logger.kafka-server.name = kafka.server.KafkaRaftServer', 'logger.kafka-server.level = info', 'logger.apache.name = org.apache.kafka', 'logger.apache.level = warn', ''].join('\n'),
    );
    const cp = `${path.join(kafkaDir(), 'libs')}/*`;
    const jvm = ['-Xms256m', '-Xmx768m', `-Dlog4j2.configurationFile=${log4j}`, '-cp', cp];
    if (!existsSync(path.join(data, 'meta.properties'))) {
      run('java', [...jvm, 'kafka.tools.StorageTool', 'format', '-t', randomUUID().replace(/-/g, '').slice(0, 22), '-c', props, '--ignore-formatted'], { what: 'kafka: storage format', stdio: ['ignore', 'pipe', 'pipe'] });
    }
    daemon('kafka', 'java', [...jvm, 'kafka.Kafka', props]);
    await waitUntil('kafka', kafkaReady, 120_000, path.join(LOGS, 'kafka.log'));
  },
  async stop() {
    const pid = ownPid('kafka');
    if (pid) await stopPid('kafka', pid);
  },
  env() {
    return { connections: { KAFKA_BROKERS: `127.0.0.1:${PORTS.kafka}` }, profile: { JOB_QUEUE: 'kafka' } };
  },
  address: () => `127.0.0.1:${PORTS.kafka}`,
};
async function kafkaReady(): Promise<boolean> {
  const log = path.join(LOGS, 'kafka.log');
  if (!(await tcpOpen(PORTS.kafka))) return false;
  // The listener opens before the broker has registered with its controller; its log says when it has.
  const text = existsSync(log) ? readFileSync(log, 'utf8') : '';
  const started = text.lastIndexOf('Kafka Server started');
  return started >= 0 && started > text.lastIndexOf('shut down completed');
}

function minioBin(): string {
  return path.join(CACHE, `minio-${MINIO.version}`, 'minio');
}
const minio: Server = {
  name: 'minio',
  install() {
    goInstall(MINIO, 'minio');
  },
  async start() {
    const ready = () => httpOk(`http://127.0.0.1:${PORTS.minio}/minio/health/ready`);
    if (ownPid('minio') && (await ready())) return say(`minio: already running on ${this.address()}`);
    await portFree('minio', PORTS.minio);
    await portFree('minio console', PORTS.minioConsole);
    const data = path.join(STATE, 'minio');
    mkdirSync(data, { recursive: true });
    daemon('minio', minioBin(), ['server', data, '--address', `127.0.0.1:${PORTS.minio}`, '--console-address', `127.0.0.1:${PORTS.minioConsole}`, '--quiet'], {
      MINIO_ROOT_USER: MINIO_USER,
      MINIO_ROOT_PASSWORD: MINIO_PASSWORD,
      MINIO_BROWSER: 'off',
      MINIO_UPDATE: 'off',
      MINIO_CALLHOME_ENABLE: 'off',
    });
    await waitUntil('minio', ready, 60_000, path.join(LOGS, 'minio.log'));
  },
  async stop() {
    const pid = ownPid('minio');
    if (pid) await stopPid('minio', pid);
  },
  env() {
    return {
      connections: { S3_ENDPOINT: `http://127.0.0.1:${PORTS.minio}`, S3_ACCESS_KEY: MINIO_USER, S3_SECRET_KEY: MINIO_PASSWORD, S3_REGION: 'us-east-1', MINIO_BIN: minioBin() },
      profile: { BLOB_STORE: 's3' },
    };
  },
  address: () => `127.0.0.1:${PORTS.minio}`,
};

const SERVERS: readonly Server[] = [postgres, redis, temporal, kafka, minio];

function pick(names: string[]): Server[] {
  if (names.length === 0) return [...SERVERS];
  return names.map((n) => SERVERS.find((s) => s.name === n) ?? fail(`unknown server '${n}' (known: ${SERVERS.map((s) => s.name).join(', ')})`));
}
function exportsOf(servers: readonly Server[], connectionsOnly: boolean): string {
  const lines: string[] = [];
  for (const s of servers) {
    const { connections, profile } = s.env();
    for (const [k, v] of Object.entries({ ...connections, ...(connectionsOnly ? {} : profile) })) lines.push(`export ${k}=${v}`);
  }
  return `${lines.join('\n')}\n`;
}

async function main(): Promise<void> {
  const [command = 'status', ...rest] = process.argv.slice(2);
  const connectionsOnly = rest.includes('--connections');
  const servers = pick(rest.filter((a) => !a.startsWith('--')));
  mkdirSync(LOGS, { recursive: true });
  mkdirSync(PIDS, { recursive: true });
  switch (command) {
    case 'install':
      for (const s of servers) s.install();
      return;
    case 'up': {
      const times: string[] = [];
      for (const s of servers) {
        let t0 = Date.now();
        s.install();
        const installMs = Date.now() - t0;
        t0 = Date.now();
        await s.start();
        times.push(`${s.name} ${s.address()} (install ${(installMs / 1000).toFixed(1)} s, start ${((Date.now() - t0) / 1000).toFixed(1)} s)`);
      }
      say(`up: ${times.join('; ')}; logs in ${LOGS}`);
      process.stdout.write(exportsOf(servers, connectionsOnly));
      return;
    }
    case 'down':
      for (const s of [...servers].reverse()) {
        await s.stop();
        say(`${s.name}: stopped`);
      }
      return;
    case 'env':
      process.stdout.write(exportsOf(servers, connectionsOnly));
      return;
    case 'status':
      for (const s of servers) {
        const pid = s.name === 'postgres' ? (pgReady() ? 'running' : null) : ownPid(s.name);
        process.stdout.write(`${s.name.padEnd(9)} ${pid ? `running (${pid})` : 'stopped'} ${s.address()}\n`);
      }
      return;
    default:
      fail(`unknown command '${command}': use up, down, install, env or status (user ${userInfo().username})`);
  }
}

await main();
