// On the hook's start-up path: no imports.

/*
 * How every path starts the daemon: a hook that finds it down, `hookd daemon start` and `restart`, the
 * systemd unit and the launchd agent. One list of V8 flags, so each of them runs it the same way.
 */

/**
 * The daemon's V8 flags. A 1 MB young generation keeps the short-lived garbage of each event (parsed
 * payloads, journal lines, socket buffers) from piling up between scavenges. A heap that grows by 20%
 * past what the last full collection kept (instead of letting it double) collects the garbage that does
 * reach the old generation before the heap, and so the resident size, climbs with the events: under 100 MB
 * after 50,000 events instead of about 150 MB, for about 2% more CPU (docs/daemon.md, "Its memory").
 * Given on the command line, not in NODE_OPTIONS, so the commands the daemon runs never inherit them.
 */
export const DAEMON_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1', '--heap-growing-percent=20'];

/** The argv of `hookd daemon run`: node, the daemon's V8 flags, the hookd program. */
export function daemonRunArgv(node: string, program: string): string[] {
  return [node, ...DAEMON_NODE_FLAGS, program, 'daemon', 'run'];
}
