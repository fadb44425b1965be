// bench/pgboss/load.mjs: one Node load generator for pg-boss and the two shapes of Exactly, the
// closed loop of issue 41's workloads C and D, cells interleaved round by round. Started by
// bench/pgboss/run, which starts the services and passes everything through the environment:
//
//   PGBOSS_DATABASE_URL  postgres://USER@HOST:PORT/DB   (pg-boss's schema and Exactly's, one database)
//   EXACTLY_SERVER_URL, EXACTLY_STATELESS_URL           http://127.0.0.1:PORT of the two services
//   EXACTLY_API_KEY                                     the key both services accept
//   ROUNDS, WARMUP_S, MEASURE_S, WORKLOADS (C,D), ITEMS (100), PRODUCERS_C (8), PRODUCERS_D (16),
//   JIT_WARMUP_S (15: before the first round, each system runs workload C that long, unrecorded,
//   into a queue of its own, so that no round measures a JVM's or Node's first compilations)
//
// Workload C: PRODUCERS_C producers, each in a loop sends one call of ITEMS new messages with new
// unique keys into one queue (Exactly: one partition; pg-boss: one queue, jobs with new UUID ids,
// its insert() is one INSERT ... ON CONFLICT DO NOTHING per call). Workload D: PRODUCERS_D producers
// retry the same ITEMS keys, call after call. Each cell (system, workload, round) has a queue of its
// own; its audit counts the rows stored in that queue and compares them with the distinct keys sent
// (warm-up included), and for Exactly with the "queued" verdicts answered. Rates are items answered
// per second of the measured period (warm-up calls not counted; calls in flight at its end are).
import http from 'node:http';
import { readFileSync, readdirSync } from 'node:fs';
import { randomUUID, createHash } from 'node:crypto';
import { PgBoss } from 'pg-boss';
import pg from 'pg';

const env = process.env;
const ROUNDS = Number(env.ROUNDS ?? 3);
const WARMUP_S = Number(env.WARMUP_S ?? 3);
const MEASURE_S = Number(env.MEASURE_S ?? 20);
const JIT_WARMUP_S = Number(env.JIT_WARMUP_S ?? 15);
const WORKLOADS = (env.WORKLOADS ?? 'C,D').split(',').filter(Boolean);
const ITEMS = Number(env.ITEMS ?? 100);
const PRODUCERS = { C: Number(env.PRODUCERS_C ?? 8), D: Number(env.PRODUCERS_D ?? 16) };
const DB_URL = env.PGBOSS_DATABASE_URL;
const KEY = env.EXACTLY_API_KEY;
const SYSTEMS = ['pg-boss', 'server', 'stateless'];
const RUN = Date.now().toString(36);

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** POST of a JSON body on loopback; resolves {status, body}. */
function post(base, path, body) {
  return new Promise((resolve, reject) => {
    const data = Buffer.from(JSON.stringify(body));
    const u = new URL(path, base);
    const req = http.request({ host: u.hostname, port: u.port, path: u.pathname, method: 'POST', agent,
      headers: { 'content-type': 'application/json', 'content-length': data.length, authorization: `Bearer ${KEY}` } },
    res => {
      const chunks = [];
      res.on('data', c => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, body: Buffer.concat(chunks).toString() }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end(data);
  });
}

/** A UUID made from a text (D's fixed keys for pg-boss, whose job id is a uuid). */
function uuidOf(text) {
  const h = createHash('sha256').update(text).digest('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

const payload = i => ({ order: i, total: 12.5, currency: 'EUR' });

/**
 * The call one producer makes, per system: sends ITEMS items, returns the number of "queued"
 * verdicts (Exactly) or of jobs inserted (pg-boss's insert() returns nothing countable: null).
 */
function caller(system, boss, base) {
  if (system === 'pg-boss') {
    return async (queue, keys) => {
      await boss.insert(queue, keys.map((k, i) => ({ id: k, data: payload(i) })));
      return null;
    };
  }
  return async (queue, keys) => {
    const r = await post(base, '/api/v1/push', { items: keys.map((k, i) => ({ queue, transactionId: k, payload: payload(i) })) });
    if (r.status !== 200) {
      throw new Error(`${system}: HTTP ${r.status} ${r.body.slice(0, 300)}`);
    }
    let queued = 0;
    for (const x of JSON.parse(r.body).results) {
      if (x.status === 'queued') {
        queued++;
      } else if (x.status !== 'duplicate') {
        throw new Error(`${system}: item answered ${JSON.stringify(x)}`);
      }
    }
    return queued;
  };
}

// CPU over a cell's measured period, from /proc: the whole machine, the database server (its
// postmaster, PG_POSTMASTER_PID, and every child of it), each Exactly service (EXACTLY_SERVER_PID,
// EXACTLY_STATELESS_PID) and this process (the load generator, and for pg-boss its client library).
const HZ = 100; // USER_HZ, the unit of /proc's CPU times on Linux
function procTicks(pid) {
  try {
    const f = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = f.slice(f.lastIndexOf(')') + 2).split(' ');
    return { ppid: Number(rest[1]), ticks: Number(rest[11]) + Number(rest[12]) };
  } catch {
    return null;
  }
}
/** pid -> CPU ticks of the database server's postmaster and its children (null when unknown). */
function databaseTicks() {
  const pm = Number(env.PG_POSTMASTER_PID ?? 0);
  if (!pm) return null;
  const t = new Map([[pm, procTicks(pm)?.ticks ?? 0]]);
  for (const d of readdirSync('/proc')) {
    if (!/^[0-9]+$/.test(d)) continue;
    const p = procTicks(d);
    if (p && p.ppid === pm) t.set(Number(d), p.ticks);
  }
  return t;
}
/** Ticks spent between two databaseTicks() maps: processes in both, and those born since (from 0). */
function databaseSpent(a, b) {
  if (!a || !b) return NaN;
  let t = 0;
  for (const [pid, ticks] of b) t += ticks - (a.get(pid) ?? 0);
  return t;
}
function cpuSample() {
  const [, ...f] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  const idle = f[3] + f[4];
  const total = f.slice(0, 8).reduce((a, b) => a + b, 0);
  const own = process.cpuUsage();
  return { at: performance.now(), busy: total - idle, total, db: databaseTicks(),
    server: procTicks(env.EXACTLY_SERVER_PID ?? 0)?.ticks ?? NaN, stateless: procTicks(env.EXACTLY_STATELESS_PID ?? 0)?.ticks ?? NaN,
    node: (own.user + own.system) / 1e6 };
}
/** Cores busy per part between two samples (machine: of the cpus; the others in cores). */
function cpuBetween(a, b) {
  const s = (b.at - a.at) / 1000;
  const cpus = cpus_();
  return { machine: cpus * (b.busy - a.busy) / (b.total - a.total), db: databaseSpent(a.db, b.db) / HZ / s,
    server: (b.server - a.server) / HZ / s, stateless: (b.stateless - a.stateless) / HZ / s, node: (b.node - a.node) / s };
}
const cpus_ = () => readFileSync('/proc/stat', 'utf8').split('\n').filter(l => /^cpu[0-9]/.test(l)).length;

/** One cell: the closed loop for WARMUP_S + MEASURE_S; its counts and latencies. */
async function cell(system, workload, round, boss, bases, warmupS = WARMUP_S, measureS = MEASURE_S) {
  const queue = `bench-${workload.toLowerCase()}-${system}-${RUN}-r${round}`;
  if (system === 'pg-boss') {
    await boss.createQueue(queue);
  }
  const call = caller(system, boss, bases[system]);
  const fixed = Array.from({ length: ITEMS }, (_, i) => `d-${queue}-${i}`);
  const fixedKeys = system === 'pg-boss' ? fixed.map(uuidOf) : fixed;
  const sent = new Set();
  let queued = 0;
  let measuredItems = 0;
  const latencies = [];
  const t0 = performance.now();
  const measureFrom = t0 + warmupS * 1000;
  const end = measureFrom + measureS * 1000;
  let errors = 0;
  let firstError = null;
  let cpuFrom = null;
  let cpuTo = null;
  const sampler = [setTimeout(() => { cpuFrom = cpuSample(); }, warmupS * 1000),
    setTimeout(() => { cpuTo = cpuSample(); }, (warmupS + measureS) * 1000 - 50)];
  async function producer(p) {
    let n = 0;
    while (performance.now() < end) {
      const keys = workload === 'D' ? fixedKeys
        : Array.from({ length: ITEMS }, () => (system === 'pg-boss' ? randomUUID() : `c-${p}-${n++}-${randomUUID()}`));
      const s = performance.now();
      try {
        const q = await call(queue, keys);
        queued += q ?? 0;
      } catch (e) {
        errors++;
        firstError ??= e;
        continue;
      } finally {
        for (const k of keys) sent.add(k);
      }
      const f = performance.now();
      if (s >= measureFrom) {
        measuredItems += keys.length;
        latencies.push(f - s);
      }
    }
  }
  await Promise.all(Array.from({ length: PRODUCERS[workload] }, (_, p) => producer(p)));
  sampler.forEach(clearTimeout);
  const cpu = cpuFrom && cpuTo ? cpuBetween(cpuFrom, cpuTo) : null;
  const stored = await storedIn(system, queue);
  latencies.sort((a, b) => a - b);
  const pct = q => (latencies.length ? latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] : NaN);
  const problems = [];
  if (stored !== sent.size) problems.push(`stored ${stored} != ${sent.size} distinct keys sent`);
  if (system !== 'pg-boss' && queued !== stored) problems.push(`${queued} queued verdicts != ${stored} stored`);
  if (errors) problems.push(`${errors} failed calls (${firstError.message.slice(0, 200)})`);
  return { system, workload, round, rate: measuredItems / measureS, stored, distinct: sent.size, p50: pct(0.5), p99: pct(0.99), problems,
    cpu };
}

/**
 * A cell's CPU, µs per message: the machine's, and the system's own (pg-boss: the database and this
 * process, which runs its client; Exactly: the database and its service, without the load generator).
 */
function cpuPerMessage(r) {
  if (!r.cpu) return { machine: NaN, own: NaN };
  const own = r.system === 'pg-boss' ? r.cpu.db + r.cpu.node : r.cpu.db + r.cpu[r.system];
  return { machine: r.cpu.machine * 1e6 / r.rate, own: own * 1e6 / r.rate, busy: r.cpu.machine, cpu: r.cpu };
}

let db;

/** Rows stored in the cell's queue, read from the database. */
async function storedIn(system, queue) {
  const sql = system === 'pg-boss'
    ? 'SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1'
    : 'SELECT count(*)::int AS n FROM exactly.messages m JOIN exactly.partitions p ON p.id = m.partition_id '
      + 'JOIN exactly.queues q ON q.id = p.queue_id WHERE q.name = $1';
  return (await db.query(sql, [queue])).rows[0].n;
}

const median = xs => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const fmt = x => (Number.isFinite(x) ? Math.round(x).toLocaleString('en-US') : '–');

async function main() {
  db = new pg.Client({ connectionString: DB_URL });
  await db.connect();
  const boss = new PgBoss({ connectionString: DB_URL, max: Math.max(...Object.values(PRODUCERS)), schema: 'pgboss',
    supervise: false, schedule: false, migrate: true });
  boss.on('error', e => console.error('pg-boss:', e.message));
  await boss.start();
  const bases = { server: env.EXACTLY_SERVER_URL, stateless: env.EXACTLY_STATELESS_URL };
  const results = [];
  if (JIT_WARMUP_S > 0) {
    for (const system of SYSTEMS) {
      const r = await cell(system, 'C', 0, boss, bases, 0, JIT_WARMUP_S);
      console.log(`warm-up (not recorded) ${system}: ${fmt(r.rate)} msgs/s${r.problems.length ? ' PROBLEMS: ' + r.problems.join('; ') : ''}`);
    }
  }
  for (let round = 1; round <= ROUNDS; round++) {
    for (const workload of WORKLOADS) {
      // the order of the systems turns each round, so that none always follows the same one
      const order = SYSTEMS.map((_, i) => SYSTEMS[(i + round - 1) % SYSTEMS.length]);
      for (const system of order) {
        await db.query('VACUUM (ANALYZE) exactly.messages, pgboss.job');
        const r = await cell(system, workload, round, boss, bases);
        results.push(r);
        const c = cpuPerMessage(r);
        console.log(`round ${round} ${workload} ${system}: ${fmt(r.rate)} msgs/s, p50 ${r.p50.toFixed(1)} ms, p99 ${r.p99.toFixed(1)} ms, `
          + `stored ${r.stored} of ${r.distinct} distinct keys${r.problems.length ? ' PROBLEMS: ' + r.problems.join('; ') : ''}`
          + (r.cpu ? `; cores busy: machine ${c.busy.toFixed(2)}, database ${r.cpu.db.toFixed(2)}, load generator ${r.cpu.node.toFixed(2)}`
            + `${system === 'pg-boss' ? '' : `, service ${r.cpu[system].toFixed(2)}`}; µs a message: machine ${fmt(c.machine)}, own ${fmt(c.own)}` : ''));
      }
    }
  }
  await boss.stop({ graceful: false, wait: true });
  await db.end();
  report(results);
  process.exitCode = results.some(r => r.problems.length) ? 1 : 0;
}

/** The table: per workload and system, msgs/s per round, the median, its ratio to pg-boss's, the audit. */
function report(results) {
  const text = { C: `C: ${PRODUCERS.C} producers x ${ITEMS} new messages per call, one partition`,
    D: `D: ${PRODUCERS.D} producers retrying the same ${ITEMS} keys` };
  console.log(`\nrounds ${ROUNDS}, warm-up ${WARMUP_S} s, measured ${MEASURE_S} s per cell; items answered per second\n`);
  console.log('| workload | system | msgs/s, median | rounds (msgs/s) | × pg-boss | p50 ms | p99 ms | machine busy | machine µs a msg | own µs a msg | audit |');
  console.log('| --- | --- | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |');
  for (const w of WORKLOADS) {
    const base = median(results.filter(r => r.workload === w && r.system === 'pg-boss').map(r => r.rate));
    for (const s of SYSTEMS) {
      const rs = results.filter(r => r.workload === w && r.system === s);
      const m = median(rs.map(r => r.rate));
      const bad = rs.flatMap(r => r.problems.map(p => `round ${r.round}: ${p}`));
      const cs = rs.map(cpuPerMessage);
      console.log(`| ${text[w]} | ${s} | ${fmt(m)} | ${rs.map(r => fmt(r.rate)).join(', ')} | ${(m / base).toFixed(2)}× `
        + `| ${median(rs.map(r => r.p50)).toFixed(1)} | ${median(rs.map(r => r.p99)).toFixed(1)} `
        + `| ${(100 * median(cs.map(c => c.busy ?? NaN)) / cpus_()).toFixed(0)}% | ${fmt(median(cs.map(c => c.machine)))} | ${fmt(median(cs.map(c => c.own)))} `
        + `| ${bad.length ? bad.join('; ') : `exact (${rs.map(r => r.stored).join(', ')} stored = distinct keys sent)`} |`);
    }
  }
  if (WORKLOADS.includes('C')) {
    const rate = s => median(results.filter(r => r.workload === 'C' && r.system === s).map(r => r.rate));
    const server = rate('server') / rate('pg-boss');
    const stateless = rate('stateless') / rate('pg-boss');
    // The CPU bound of the ratio on this machine: with both cells using every core, msgs/s follow the
    // inverse of the CPU a message takes; without the load generator's HTTP client (pg-boss's own
    // client counts as pg-boss's), the best Exactly ÷ pg-boss the cores allow is pg-boss's own µs
    // a message ÷ Exactly's own (its service and the database).
    const own = s => median(results.filter(r => r.workload === 'C' && r.system === s).map(r => cpuPerMessage(r).own));
    const bound = s => own('pg-boss') / own(s);
    const line = (s, t, x) => `target C, ${s === 'server' ? 'server mode' : s} >= ${t}x pg-boss: ${x.toFixed(2)}x ${x >= t ? 'met' : 'NOT met'}`
      + (Number.isFinite(bound(s)) ? `; CPU bound without the load generator ${bound(s).toFixed(2)}x, ratio to it ${(x / bound(s)).toFixed(2)}` : '');
    console.log('\n' + line('server', 1.5, server));
    console.log(line('stateless', 1.0, stateless));
  }
}

main().catch(e => {
  console.error(e);
  process.exit(2);
});
