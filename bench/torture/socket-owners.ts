import { readdirSync, readFileSync, readlinkSync } from 'node:fs';

/**
 * Which of `pids` own a loopback TCP connection from one of `localPorts`
 * (Linux: the socket's inode in /proc/net/tcp, found among each process's
 * open files). The push phase asks it which servers have a request held by
 * the sink, so that its kill -9 lands on one with requests in flight.
 */
export function pidsOwningPorts(pids: readonly number[], localPorts: readonly number[]): Set<number> {
  const wanted = new Set(localPorts);
  const inodes = new Set<string>();
  try {
    for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      const local = fields[1];
      if (!local || !fields[9]) continue;
      if (wanted.has(parseInt(local.split(':')[1]!, 16))) inodes.add(fields[9]);
    }
  } catch {
    return new Set();
  }
  const owners = new Set<number>();
  for (const pid of pids) {
    try {
      for (const fd of readdirSync(`/proc/${pid}/fd`)) {
        const link = safeReadlink(`/proc/${pid}/fd/${fd}`);
        const inode = /^socket:\[(\d+)\]$/.exec(link)?.[1];
        if (inode && inodes.has(inode)) {
          owners.add(pid);
          break;
        }
      }
    } catch {
      // the process is gone
    }
  }
  return owners;
}

function safeReadlink(path: string): string {
  try {
    return readlinkSync(path);
  } catch {
    return '';
  }
}
