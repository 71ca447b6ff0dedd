import { describe, expect, it } from 'vitest';
import { LISTED_COMMANDS } from '../../../src/cli/commands/index.js';

// `hookd --help` and completion list the commands from LISTED_COMMANDS without loading them: what it
// says of each must be what the command's own module says.
describe('the listed commands', () => {
  it('name and describe each command as its module does, and load a module that runs it', async () => {
    expect(LISTED_COMMANDS.length).toBeGreaterThan(20);
    for (const listed of LISTED_COMMANDS) {
      const module = await listed.load();
      expect(module.command, listed.command).toBe(listed.command);
      expect(module.describe, listed.command).toBe(listed.describe);
      expect(typeof module.handler, listed.command).toBe('function');
    }
    // It loads every command's module (most of the CLI): seconds on a busy machine.
  }, 30_000);

  it('are each listed once', () => {
    const names = LISTED_COMMANDS.map((c) => c.command.split(' ')[0]);
    expect(new Set(names).size).toBe(names.length);
  });
});
