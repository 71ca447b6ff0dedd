import { statSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** True when the path is a regular file (after symlinks), false when absent or not a file. */
export function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

/** True when the project folder is the home folder: the agent then reads those files once. */
export function projectIsHome(project: string, home: string): boolean {
  return resolve(project) === resolve(home);
}

/** `<base>/<dirName>/<name>`: a file in an agent's folder under the home folder or a project. */
export function inAgentDir(base: string, dirName: string, name: string): string {
  return join(base, dirName, name);
}
