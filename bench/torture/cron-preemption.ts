import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pg from 'pg';
import { RestCaller } from './rest-caller.js';
import { ServerFleet } from './server-fleet.js';
import { sleep } from './sleep.js';
import { ADMIN, REPO_DIR, type TestBed } from './test-bed.js';
import { MAIN_QUEUE, queuePath } from './workload.js';

/** The job the scenario's cron server fires: every minute on the minute, so the next firings' names are known. */
const JOB = 'preempt';
const CRON_YAML = `cron:\n- name: ${JOB}\n  url: /cron/${JOB}\n  schedule: "* * * * *"\n`;
/** A firing at the next minute boundary comes within 60 s; the rest is for a server slowed by the machine. */
const FIRING_DEADLINE_MS = 150_000;
/** What the service says when it refuses a firing's name (src/core/cron/cron-job.ts, RESERVED_CRON_NAME_REASON). */
const RESERVED = /has the form of a cron firing/;

/** One attempt to take a firing's place. */
export interface PreemptionAttempt {
  readonly path: string;
  readonly name: string;
  /** How it ended: `refused: <why>`, or `ADDED` (the attack worked). */
  readonly outcome: string;
  /** Refused because the name is a cron firing's: any other ending fails the scenario. */
  readonly refused: boolean;
}

export interface CronPreemptionReport {
  readonly attempts: readonly PreemptionAttempt[];
  /** The firing the attempts aimed at, as it reached the sink from the cron service (null: it never came). */
  readonly delivered: string | null;
  /** The job's record after the firing: `<outcome> <task>`. */
  readonly recorded: string;
}

/**
 * Issue 30: a producer could add the next cron firing's task name first,
 * so its own request was delivered in the firing's place and the firing
 * skipped in silence. A server with a cron file joins the bed's database;
 * then, as a REST administrator (who may add to push queues) and as a SQL
 * role holding only `taskqueue_producer`, the scenario tries to add the next
 * two firings' names (and a run's name) to the cron queue and to a pull
 * queue. Every attempt must be refused for that reason, and the next firing
 * must arrive at the sink under its name and be recorded `added`.
 */
export async function runCronPreemption(bed: TestBed, log: (line: string) => void): Promise<CronPreemptionReport> {
  const dir = join(bed.workDir, 'cron');
  mkdirSync(dir, { recursive: true });
  const cronPath = join(dir, 'cron.yaml');
  writeFileSync(cronPath, CRON_YAML);
  const fleet = await ServerFleet.start(1, {
    repoDir: REPO_DIR,
    logDir: dir,
    env: {
      DATABASE_URL: bed.databaseUrl,
      TASKQUEUE_CONFIG: bed.configPath,
      TASKQUEUE_ADMINS: ADMIN,
      TASKQUEUE_CRON: cronPath,
      TASKQUEUE_PUSH_BASE_URL: bed.sink.url,
    },
  });
  const previousAnswer = bed.sink.answer;
  bed.sink.answer = (delivery) =>
    delivery.task.startsWith(`cron-${JOB}-`) ? { status: 200, delayMs: 0 } : previousAnswer(delivery);
  const db = new pg.Client({ connectionString: bed.databaseUrl });
  await db.connect();
  const role = 'torture_cron_producer';
  try {
    log(
      `cron pre-emption: a server with a cron file (${fleet.slots[0]!.url}, logs in ${dir}) fires "${JOB}" every minute`,
    );
    // The next two instants on the database's clock; far enough from the boundary that the attempts come first.
    let nowMs = Number(
      (await db.query<{ ms: number }>('select (extract(epoch from now()) * 1000)::float8 as ms')).rows[0]!.ms,
    );
    if (60_000 - (nowMs % 60_000) < 10_000) {
      await sleep(60_000 - (nowMs % 60_000) + 1000);
      nowMs += 60_000 - (nowMs % 60_000) + 1000;
    }
    const next = Math.ceil(nowMs / 60_000) * 60_000;
    const names = [next, next + 60_000].map((ms) => `cron-${JOB}-${stamp(ms)}`);
    const runName = `cron-${JOB}-run-${stamp(next).slice(0, -1)}000Z`;

    const attempts: PreemptionAttempt[] = [];
    const caller = new RestCaller(fleet.slots, `Bearer ${bed.token}`);
    for (const [queue, name] of [
      ['cron', names[0]!],
      ['cron', names[1]!],
      ['cron', runName],
      [MAIN_QUEUE, names[0]!],
    ] as const) {
      const body = JSON.stringify({ id: name, payloadBase64: '' });
      const path = `REST insert into ${queue}`;
      const answer = await caller.call(
        'POST',
        `${queuePath(queue)}/tasks`,
        { body, headers: { 'content-type': 'application/json' } },
        0,
      );
      const text = answer.body.toString('utf8');
      attempts.push(
        answer.status === 200
          ? { path, name, outcome: 'ADDED', refused: false }
          : {
              path,
              name,
              outcome: `refused: ${answer.status} ${oneLine(text)}`,
              refused: answer.status === 400 && RESERVED.test(text),
            },
      );
    }
    await db.query(`drop role if exists ${role}`);
    await db.query(`create role ${role} nologin`);
    await db.query(`grant taskqueue_producer to ${role}`);
    const sqlAttempts: [string, string, unknown[]][] = [
      [
        'SQL add_push_task to cron',
        `select taskqueue.add_push_task('cron', url => '/forged', method => 'GET', name => $1, headers => '{"X-CloudScheduler":"true"}')`,
        [names[0]],
      ],
      [
        'SQL add_push_task to cron',
        `select taskqueue.add_push_task('cron', url => '/forged', method => 'GET', name => $1)`,
        [names[1]],
      ],
      ['SQL add_task', `select taskqueue.add_task($2, 'x'::bytea, $1)`, [names[0], MAIN_QUEUE]],
      ['SQL add_tasks', `select taskqueue.add_tasks($2, array['x']::bytea[], array[$1])`, [runName, MAIN_QUEUE]],
    ];
    for (const [path, text, params] of sqlAttempts) {
      const name = String(params[0]);
      await db.query('begin');
      try {
        await db.query(`set local role ${role}`);
        await db.query(text, params);
        await db.query('commit');
        attempts.push({ path, name, outcome: 'ADDED', refused: false });
      } catch (error) {
        await db.query('rollback');
        const { code, message } = error as { code?: string; message: string };
        attempts.push({
          path,
          name,
          outcome: `refused: ${code ?? '?'} ${oneLine(message)}`,
          refused: code === 'TQ005' && RESERVED.test(message),
        });
      }
    }

    // The firing the attempts aimed at comes, under its own name, and is recorded as added.
    const deadline = Date.now() + FIRING_DEADLINE_MS;
    let delivered: string | null = null;
    while (Date.now() < deadline && delivered === null) {
      // `__cron` is the queue name only the cron service's requests carry (a forged task in the cron queue says `cron`).
      delivered =
        bed.sink.deliveries.find(
          (delivery) => delivery.task === names[0] && delivery.queue === '__cron' && delivery.status === 200,
        )?.task ?? null;
      if (delivered === null) await sleep(250);
    }
    // The record is written in the transaction that adds the task: once delivered, it is there.
    const row = (
      await db.query<{ outcome: string | null; task: string | null }>(
        `select last_outcome as outcome, last_task as task from taskqueue.cron_jobs where name = $1`,
        [JOB],
      )
    ).rows[0];
    return { attempts, delivered, recorded: `${row?.outcome ?? 'none'} ${row?.task ?? ''}` };
  } finally {
    bed.sink.answer = previousAnswer;
    await db.query(`drop owned by ${role}`).catch(() => {});
    await db.query(`drop role if exists ${role}`).catch(() => {});
    await db.end();
    await fleet.stop();
  }
}

export function describeCronPreemption(report: CronPreemptionReport): string[] {
  const lines = report.attempts.map((a) => `${a.refused ? 'ok' : 'FAIL'} ${a.path} of ${a.name}: ${a.outcome}`);
  lines.push(
    report.delivered === null
      ? 'FAIL the firing the attempts aimed at never reached the sink'
      : `ok the firing ${report.delivered} reached the sink`,
    `${report.recorded.startsWith('added ') ? 'ok' : 'FAIL'} cron_jobs records: ${report.recorded}`,
  );
  return lines;
}

export function cronPreemptionPassed(report: CronPreemptionReport): boolean {
  return report.attempts.every((a) => a.refused) && report.delivered !== null && report.recorded.startsWith('added ');
}

/** An instant as a firing's task name writes it: `YYYYMMDDTHHMMSSZ`. */
function stamp(ms: number): string {
  return new Date(ms)
    .toISOString()
    .replace(/\.\d{3}Z$/, 'Z')
    .replace(/[-:]/g, '');
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, ' ').slice(0, 200);
}
