import { rmSync, lutimesSync, watch, type FSWatcher } from 'node:fs';
import type { Logger } from 'pino';
import { SPOOL_WATCH_TOUCH_MS } from '../../link/runtime-files.js';
import { ensurePrivateDir, writePrivateFileAtomic } from '../../util/private-fs.js';

export interface SpoolWatchOptions {
  /** The spool folder (created private when missing). */
  dir: string;
  /** The spool-watch file hooks check (DaemonFiles.spoolWatch). */
  marker: string;
  /** Something changed in the spool: drain it (Ingest.scheduleDrain). */
  onChange: () => void;
  logger: Logger;
  /** How often the spool-watch file is touched (default SPOOL_WATCH_TOUCH_MS). */
  touchMs?: number;
}

/**
 * Watches the spool folder, so that a hook can leave its event there while this daemon runs instead of
 * connecting and waiting for the journal (docs/daemon.md, "The spool"): every change in the folder
 * schedules a drain. Once the watch is up, the spool-watch file says so (this process's pid inside, for
 * people), touched every SPOOL_WATCH_TOUCH_MS: hooks that find it fresh spool their events, and the file
 * of a daemon that died is soon too old to be trusted. The periodic scan stays as the safety net for a
 * change the system did not report.
 *
 * The returned stop removes the file first (no hook leaves an event for this daemon after that), then
 * the watch; an event spooled in between is drained at the next start. When the system cannot watch the
 * folder (no inotify watch left, a file system without change events), the file is never written (or
 * removed, if the watch fails later) and hooks connect to the socket as before.
 */
export function watchSpool(o: SpoolWatchOptions): () => void {
  let watcher: FSWatcher | undefined;
  let touching: NodeJS.Timeout | undefined;
  const unmark = () => rmSync(o.marker, { force: true });
  const stopWatching = () => {
    clearInterval(touching);
    watcher?.close();
    watcher = undefined;
  };
  try {
    ensurePrivateDir(o.dir);
    watcher = watch(o.dir, { persistent: false }, () => o.onChange());
    watcher.on('error', (error: Error) => {
      o.logger.warn(
        { error: error.message, spool: o.dir },
        'cannot watch the spool any more; hooks hand events over the socket again',
      );
      try {
        unmark();
      } catch {}
      stopWatching();
    });
    writePrivateFileAtomic(o.marker, `${process.pid}\n`);
    touching = setInterval(() => {
      try {
        const now = new Date();
        lutimesSync(o.marker, now, now);
      } catch (error) {
        // Removed or replaced from outside: hooks hand events over the socket from now on.
        o.logger.warn({ error: (error as Error).message }, 'cannot touch the spool-watch file');
        stopWatching();
      }
    }, o.touchMs ?? SPOOL_WATCH_TOUCH_MS);
    touching.unref();
  } catch (error) {
    o.logger.warn(
      { error: (error as Error).message, spool: o.dir },
      'cannot watch the spool; hooks hand events over the socket',
    );
    stopWatching();
  }
  return () => {
    try {
      unmark();
    } catch {}
    stopWatching();
  };
}
