import type { CommandModule } from 'yargs';
import { readInputFile } from '../../read-input.js';
import { CliError, EXIT } from '../../../errors.js';
import { formatJsonLine, paint, safeText } from '../../../terminal/output.js';
import { failed } from '../../../events/failed.js';
import { cli, cliOut } from '../../../terminal/cli-io.js';

interface ReplayArgs {
  file: string;
  daemon: boolean;
  json: boolean;
  event?: string[];
}

/**
 * The payloads of a recorded stream: one JSON object per line, either a payload itself or a capture
 * record with the payload under `stdin` (the droid harness's capture-hook.sh format). Blank lines are
 * skipped; a bad line is reported with its number.
 */
export function readRecordedEvents(
  text: string,
): { line: number; payload?: Record<string, unknown>; error?: string }[] {
  const out: { line: number; payload?: Record<string, unknown>; error?: string }[] = [];
  text.split('\n').forEach((raw, i) => {
    if (raw.trim() === '') return;
    try {
      const value = JSON.parse(raw) as unknown;
      if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error('not a JSON object');
      const record = value as Record<string, unknown>;
      const payload =
        record.stdin && typeof record.stdin === 'object' && !('hook_event_name' in record)
          ? record.stdin
          : record;
      out.push({ line: i + 1, payload: payload as Record<string, unknown> });
    } catch (error) {
      out.push({ line: i + 1, error: (error as Error).message });
    }
  });
  return out;
}

export const replayCommand: CommandModule<object, ReplayArgs> = {
  command: 'replay <file>',
  describe: 'Run a recorded stream of events (JSON lines) through the hook path, in order',
  builder: (y) =>
    y
      .positional('file', {
        type: 'string',
        demandOption: true,
        describe: 'JSONL file: one payload (or capture record) per line',
      })
      .option('event', { type: 'string', array: true, describe: 'Only replay these event names' })
      .option('daemon', { type: 'boolean', default: false, describe: 'Also hand each event to the daemon' })
      .option('json', {
        type: 'boolean',
        default: false,
        describe: 'Print one JSON result per event (JSON lines)',
      })
      .example('hookd replay session.jsonl', 'Replay a recorded session against your config')
      .example(
        'hookd replay session.jsonl --event PreToolUse --json',
        'Only the PreToolUse events, as JSON lines',
      ),
  handler: async (args) => {
    const text = readInputFile(args.file);
    const records = readRecordedEvents(text);
    const out = cliOut();
    // Loaded here, not with the module: `hookd replay --help` needs none of it.
    const [{ processEvent }, { cliProcessIO }, { formatReport, reportJson }] = await Promise.all([
      import('../../../hook-path/process-event.js'),
      import('../../hook-io.js'),
      import('../../../explain/format-report.js'),
    ]);
    const io = cliProcessIO({ daemon: args.daemon });
    let events = 0;
    let failures = 0;
    let bad = 0;
    try {
      for (const record of records) {
        if (!record.payload) {
          bad++;
          cli().stderr.write(safeText(`hookd: ${args.file}:${record.line}: skipped, ${record.error}`) + '\n');
          continue;
        }
        const name = record.payload.hook_event_name;
        if (args.event && !args.event.includes(String(name))) continue;
        const report = await processEvent(Buffer.from(JSON.stringify(record.payload)), io);
        events++;
        failures += report.ran.filter((r) => failed(r.result, r.planned.spec.blocking)).length;
        out.write(
          args.json
            ? formatJsonLine({ line: record.line, ...(reportJson(report) as object) })
            : formatReport(report, out),
        );
      }
    } finally {
      io.logger.close();
    }
    if (!args.json) {
      out.write(
        paint(
          out,
          'bold',
          `\n${events} event(s) replayed, ${failures} command failure(s)${bad ? `, ${bad} bad line(s)` : ''}\n`,
        ),
      );
    }
    if (bad > 0 && events === 0) throw new CliError(`no valid event in ${args.file}`, EXIT.FAILURE);
  },
};
