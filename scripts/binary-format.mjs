// What a built native program is, read from its headers: format (ELF or Mach-O), architecture, how it is
// linked (an ELF interpreter and dynamic section; the dylibs a Mach-O loads), whether it still carries a
// symbol table, and for Mach-O its minimum macOS and whether its ad-hoc code signature matches its pages
// (macOS on Apple silicon refuses to start an arm64 program whose signature does not). Used by
// scripts/package.mjs before it packs a platform package, and by the tests. Node built-ins only.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const ELF_MACHINES = { 62: 'x64', 183: 'arm64' };
const MACHO_CPUS = { 0x01000007: 'x64', 0x0100000c: 'arm64' };

/** A C string in `buf` from `at`, at most `max` bytes. */
function cString(buf, at, max = 4096) {
  const end = buf.indexOf(0, at);
  return buf.toString('latin1', at, end < 0 ? Math.min(buf.length, at + max) : end);
}

function readElf(buf) {
  if (buf[4] !== 2 || buf[5] !== 1) return { format: 'elf', problem: 'not a 64-bit little-endian ELF file' };
  const arch = ELF_MACHINES[buf.readUInt16LE(18)] ?? `machine ${buf.readUInt16LE(18)}`;
  const type = buf.readUInt16LE(16);
  const phoff = Number(buf.readBigUInt64LE(32));
  const phentsize = buf.readUInt16LE(54);
  const phnum = buf.readUInt16LE(56);
  let interpreter;
  let dynamic = false;
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    const kind = buf.readUInt32LE(at);
    if (kind === 3) {
      const offset = Number(buf.readBigUInt64LE(at + 8));
      interpreter = cString(buf, offset);
    } else if (kind === 2) dynamic = true;
  }
  const shoff = Number(buf.readBigUInt64LE(40));
  const shentsize = buf.readUInt16LE(58);
  const shnum = buf.readUInt16LE(60);
  let symbols = false;
  for (let i = 0; i < shnum; i++) if (buf.readUInt32LE(shoff + i * shentsize + 4) === 2) symbols = true;
  return {
    format: 'elf',
    os: 'linux',
    arch,
    executable: type === 2 || type === 3,
    static: interpreter === undefined && !dynamic,
    ...(interpreter ? { interpreter } : {}),
    symbols,
  };
}

/** The ad-hoc signature's CodeDirectory checked against the file's pages: undefined when every page matches. */
function signatureProblem(buf, dataoff, datasize) {
  const blob = buf.subarray(dataoff, dataoff + datasize);
  if (blob.length < 12 || blob.readUInt32BE(0) !== 0xfade0cc0) return 'no code signature superblob';
  const count = blob.readUInt32BE(8);
  for (let i = 0; i < count; i++) {
    if (blob.readUInt32BE(12 + i * 8) !== 0) continue;
    const cd = blob.subarray(blob.readUInt32BE(16 + i * 8));
    if (cd.readUInt32BE(0) !== 0xfade0c02) return 'no code directory';
    const hashOffset = cd.readUInt32BE(16);
    const codeSlots = cd.readUInt32BE(28);
    const codeLimit = cd.readUInt32BE(32);
    const hashSize = cd[36];
    const hashType = cd[37];
    const pageSize = 2 ** cd[39];
    if (hashType !== 2 || hashSize !== 32) return `hash type ${hashType} (expected SHA-256)`;
    if (codeSlots !== Math.ceil(codeLimit / pageSize)) return 'code slots do not cover the code';
    for (let slot = 0; slot < codeSlots; slot++) {
      const page = buf.subarray(slot * pageSize, Math.min((slot + 1) * pageSize, codeLimit));
      const want = cd.subarray(hashOffset + slot * hashSize, hashOffset + (slot + 1) * hashSize);
      if (!createHash('sha256').update(page).digest().equals(want))
        return `page ${slot} does not match its hash`;
    }
    return undefined;
  }
  return 'no code directory';
}

function readMachO(buf) {
  const arch = MACHO_CPUS[buf.readUInt32LE(4)] ?? `cputype ${buf.readUInt32LE(4).toString(16)}`;
  const ncmds = buf.readUInt32LE(16);
  const dylibs = [];
  let dylinker;
  let minos;
  let signature = 'unsigned';
  let at = 32;
  for (let i = 0; i < ncmds; i++) {
    const cmd = buf.readUInt32LE(at);
    const size = buf.readUInt32LE(at + 4);
    if (cmd === 0xc || cmd === 0x80000018 || cmd === 0x8000001f)
      dylibs.push(cString(buf, at + buf.readUInt32LE(at + 8)));
    else if (cmd === 0xe) dylinker = cString(buf, at + buf.readUInt32LE(at + 8));
    else if (cmd === 0x32 && buf.readUInt32LE(at + 8) === 1) {
      const v = buf.readUInt32LE(at + 12);
      minos = `${v >>> 16}.${(v >>> 8) & 0xff}`;
    } else if (cmd === 0x1d)
      signature = signatureProblem(buf, buf.readUInt32LE(at + 8), buf.readUInt32LE(at + 12)) ?? 'valid';
    at += size;
  }
  return {
    format: 'macho',
    os: minos ? 'darwin' : 'unknown',
    arch,
    executable: buf.readUInt32LE(12) === 2,
    ...(dylinker ? { dylinker } : {}),
    dylibs,
    ...(minos ? { minos } : {}),
    signature,
  };
}

/** What the program in `buf` (or the file at that path) is; `format: 'unknown'` for anything else. */
export function describeBinary(input) {
  const buf = typeof input === 'string' ? readFileSync(input) : input;
  if (buf.length >= 64 && buf.readUInt32BE(0) === 0x7f454c46) return readElf(buf);
  if (buf.length >= 32 && buf.readUInt32LE(0) === 0xfeedfacf) return readMachO(buf);
  return { format: 'unknown' };
}

/**
 * Why the program in `buf` is not what the platform package `platform` (linux-x64, darwin-arm64, ...)
 * must carry, or undefined: an executable of that system and architecture, without symbols; on Linux
 * static (no interpreter: it runs with glibc or musl); on macOS loading nothing but libSystem through
 * /usr/lib/dyld, with a code signature that matches.
 */
export function platformBinaryProblem(input, platform) {
  const [os, arch] = platform.split('-');
  const info = describeBinary(input);
  const problems = [];
  const want = os === 'darwin' ? 'macho' : 'elf';
  if (info.format !== want) return `${info.format} file, not ${want}`;
  if (info.problem) return info.problem;
  if (!info.executable) problems.push('not an executable');
  if (info.arch !== arch) problems.push(`architecture ${info.arch}, not ${arch}`);
  if (want === 'elf') {
    if (!info.static) problems.push(`not static (interpreter ${info.interpreter ?? 'none'})`);
    if (info.symbols) problems.push('not stripped');
  } else {
    if (info.os !== 'darwin') problems.push('no macOS build version');
    if (info.dylinker !== '/usr/lib/dyld') problems.push(`dynamic linker ${info.dylinker}`);
    const others = info.dylibs.filter((d) => d !== '/usr/lib/libSystem.B.dylib');
    if (others.length > 0 || info.dylibs.length === 0)
      problems.push(`links ${info.dylibs.join(', ') || 'nothing'}`);
    // Apple silicon runs no arm64 program without a valid signature (an ad-hoc one is enough); Intel
    // Macs need none, but one that is there must match.
    if (info.signature !== 'valid' && (arch === 'arm64' || info.signature !== 'unsigned'))
      problems.push(`code signature: ${info.signature}`);
  }
  return problems.length > 0 ? problems.join('; ') : undefined;
}
