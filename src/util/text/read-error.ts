/**
 * Why a file a person named could not be read, and what to do about it (an `EISDIR` is not a
 * permissions problem). `reason` has no path in it: callers say which file. Import-free: the hook path
 * uses it for config files.
 */
export function describeReadError(error: unknown, file: string): { reason: string; fix: string } {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  switch (code) {
    case 'ENOENT':
      return { reason: 'it does not exist', fix: 'check the path' };
    case 'EISDIR':
      return {
        reason: 'it is a directory, not a file',
        fix: `name the JSON file inside it (e.g. ${file}/config.json)`,
      };
    case 'ELOOP':
      return { reason: 'it is a symbolic link loop', fix: `point the link at a real file (ls -l ${file})` };
    case 'ENOTDIR':
      return { reason: 'a part of its path is a file, not a directory', fix: 'check the path' };
    case 'EACCES':
    case 'EPERM':
      return { reason: `this user may not read it (${code})`, fix: `check its permissions (ls -l ${file})` };
    default:
      return {
        reason: code ?? (error instanceof Error ? error.message : String(error)),
        fix: 'check the file',
      };
  }
}
