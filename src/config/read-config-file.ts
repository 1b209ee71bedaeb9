import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { isQueueError } from '../core/errors.js';
import { configError } from './config-error.js';

/**
 * Largest configuration file read. A queue.xml of the 100 active queues a
 * config may define, each with a long ACL, is a few tens of kilobytes; a
 * 64 MB file once took 2.4 GB of memory to parse.
 */
export const MAX_CONFIG_BYTES = 1024 * 1024;

/**
 * Reads a configuration file as UTF-8, refusing anything but a regular file
 * of at most MAX_CONFIG_BYTES. The file is opened non-blocking and its type
 * checked on the open handle (not by a stat of the path beforehand, which a
 * rename could outdate), so a FIFO or a device is refused at once instead of
 * blocking start-up forever. The size is checked on the handle too, and the
 * read stops one byte past the cap, so a file growing meanwhile is refused
 * rather than read whole.
 */
export async function readConfigFile(path: string): Promise<string> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (error) {
    throw configError({ file: path }, `cannot read the configuration file: ${reasonOf(error)}`, { cause: error });
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) {
      throw configError({ file: path }, `the configuration must be a regular file, but this is ${kindOf(stats)}`);
    }
    if (stats.size > MAX_CONFIG_BYTES) {
      throw configError(
        { file: path },
        `the configuration file is ${stats.size} bytes, more than the limit of ${MAX_CONFIG_BYTES}`,
      );
    }
    const buffer = Buffer.alloc(MAX_CONFIG_BYTES + 1);
    let length = 0;
    while (length < buffer.length) {
      const { bytesRead } = await handle.read(buffer, length, buffer.length - length, length);
      if (bytesRead === 0) break;
      length += bytesRead;
    }
    if (length > MAX_CONFIG_BYTES) {
      throw configError({ file: path }, `the configuration file is more than the limit of ${MAX_CONFIG_BYTES} bytes`);
    }
    return buffer.toString('utf8', 0, length);
  } catch (error) {
    if (isQueueError(error)) throw error;
    throw configError({ file: path }, `cannot read the configuration file: ${reasonOf(error)}`, { cause: error });
  } finally {
    await handle.close();
  }
}

function reasonOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function kindOf(stats: {
  isDirectory(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isCharacterDevice(): boolean;
  isBlockDevice(): boolean;
}): string {
  if (stats.isDirectory()) return 'a directory';
  if (stats.isFIFO()) return 'a FIFO (named pipe)';
  if (stats.isSocket()) return 'a socket';
  if (stats.isCharacterDevice()) return 'a character device';
  if (stats.isBlockDevice()) return 'a block device';
  return 'not a regular file';
}
