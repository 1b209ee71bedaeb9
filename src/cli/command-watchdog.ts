import { spawn, type ChildProcess } from 'node:child_process';

/**
 * After the runner is gone, seconds a command's process group has between
 * SIGTERM and SIGKILL. Short: nobody is left to record its result, and its
 * task's lease (as short as 1 s) runs out soon, when another runner may
 * take the task and run it again.
 */
export const KILL_AFTER_SECONDS = 3;

/**
 * The watchdog, a /bin/sh script (every command runs under /bin/sh already;
 * one more shell costs about a megabyte, a Node process forty). It reads
 * `+PGID` and `-PGID` lines from its stdin, a pipe whose other end only the
 * runner holds. End of file there is how Linux tells a process that another
 * died, with no prctl(PR_SET_PDEATHSIG) in Node: the kernel closes a killed
 * process's descriptors, so even `kill -9` of the runner ends the loop. Then
 * it sends SIGTERM to every process group still listed, and SIGKILL to those
 * still there after KILL_AFTER_SECONDS. Only builtins in the loop, so a busy
 * runner costs it no fork per task.
 */
const WATCHDOG_SCRIPT = `
groups=' '
while IFS= read -r line; do
  id=\${line#?}
  case $line in
    +*) groups="$groups$id " ;;
    -*) case $groups in *" $id "*) groups="\${groups%% $id *} \${groups#* $id }" ;; esac ;;
  esac
done
[ -z "\${groups# }" ] && exit 0
for g in $groups; do kill -s TERM -- "-$g" 2>/dev/null; done
sleep ${KILL_AFTER_SECONDS}
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
exit 0
`;

/**
 * Kills the process groups of the runner's commands when the runner dies,
 * however it dies. Each command runs in a process group of its own (spawned
 * detached, so also out of reach of the terminal's Ctrl-C: the runner drains
 * instead); the watchdog, in a session of its own too, outlives the runner
 * and sees its end. One watchdog per runner, started with the first command.
 * It does not keep the runner's event loop alive, and a runner that exits
 * normally ends it the same way (any command still listed is killed).
 *
 * A command registers right after spawn() returns, in the same turn (Node
 * writes to a pipe synchronously when it can): only a kill landing between
 * the two escapes it.
 */
export class CommandWatchdog {
  #process: ChildProcess | null = null;

  /** Starts watching the process group `pgid` (a command spawned detached: its pid). */
  watch(pgid: number): void {
    this.#send(`+${pgid}\n`);
  }

  /** The command ended: its group is no longer the runner's to kill (its id may be reused). */
  unwatch(pgid: number): void {
    this.#send(`-${pgid}\n`);
  }

  #send(line: string): void {
    const watchdog = this.#process ?? this.#start();
    watchdog.stdin?.write(line);
  }

  #start(): ChildProcess {
    // None of our environment but a PATH for its `sleep`; stdout and stderr ignored.
    const watchdog = spawn('/bin/sh', ['-c', WATCHDOG_SCRIPT], {
      stdio: ['pipe', 'ignore', 'ignore'],
      detached: true,
      env: { PATH: '/usr/bin:/bin' },
    });
    this.#process = watchdog;
    // Killed by someone else: the next command starts another (the commands it listed are on their own).
    watchdog.on('exit', () => {
      if (this.#process === watchdog) this.#process = null;
    });
    watchdog.on('error', () => {
      if (this.#process === watchdog) this.#process = null;
    });
    watchdog.stdin?.on('error', () => {});
    // The runner exits when its work is done, watchdog or not.
    watchdog.unref();
    (watchdog.stdin as unknown as { unref?: () => void } | null)?.unref?.();
    return watchdog;
  }
}
