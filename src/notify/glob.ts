/**
 * A small glob for `project` filters: `**` crosses folders, `*` and `?` stay inside one, `{a,b}` picks one,
 * a leading `~` is the home dir. Everything else is literal (no RegExp from user text).
 */
export function globToRegExp(glob: string, home?: string): RegExp {
  const pattern = home && (glob === '~' || glob.startsWith('~/')) ? home + glob.slice(1) : glob;
  let out = '';
  let depth = 0;
  for (let i = 0; i < pattern.length; i++) {
    const ch = pattern[i]!;
    if (ch === '*') {
      if (pattern[i + 1] === '*') {
        i++;
        // "**/" matches zero or more whole folders.
        if (pattern[i + 1] === '/') {
          i++;
          out += '(?:.*/)?';
        } else out += '.*';
      } else out += '[^/]*';
    } else if (ch === '?') out += '[^/]';
    else if (ch === '{') {
      depth++;
      out += '(?:';
    } else if (ch === '}' && depth > 0) {
      depth--;
      out += ')';
    } else if (ch === ',' && depth > 0) out += '|';
    else out += ch.replace(/[.+^$()|[\]\\{}]/g, '\\$&');
  }
  while (depth-- > 0) out += ')';
  return new RegExp(`^${out}$`);
}

/** True when the dir matches the glob; a glob without "/" is tested against the folder name alone. */
export function matchesProject(glob: string, dir: string, home?: string): boolean {
  const trimmed = dir.length > 1 ? dir.replace(/\/+$/, '') : dir;
  if (!glob.includes('/') && glob !== '~') {
    const name = trimmed.slice(trimmed.lastIndexOf('/') + 1);
    return globToRegExp(glob).test(name);
  }
  const re = globToRegExp(glob.length > 1 ? glob.replace(/\/+$/, '') : glob, home);
  return re.test(trimmed);
}
