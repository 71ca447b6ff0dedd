const HEX = '0123456789abcdef';

/**
 * A random RFC 4122 version-4 shaped id from Math.random, mixed with the time and pid. Event ids only
 * need to be unique, not unguessable, and this avoids loading node:crypto on every event.
 */
export function newEventId(): string {
  const seed = `${Date.now().toString(16)}${process.pid.toString(16)}`;
  let out = '';
  for (let i = 0; i < 32; i++) {
    let nibble = Math.floor(Math.random() * 16);
    if (i < seed.length) nibble ^= HEX.indexOf(seed[seed.length - 1 - i]!);
    if (i === 12) nibble = 4;
    if (i === 16) nibble = (nibble & 0x3) | 0x8;
    out += HEX[nibble & 0xf];
    if (i === 7 || i === 11 || i === 15 || i === 19) out += '-';
  }
  return out;
}
