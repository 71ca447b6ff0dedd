// Types of scripts/binary-format.mjs, for the tests that import it.

export interface BinaryInfo {
  format: 'elf' | 'macho' | 'unknown';
  problem?: string;
  os?: string;
  arch?: string;
  executable?: boolean;
  /** ELF: no program interpreter and no dynamic section. */
  static?: boolean;
  interpreter?: string;
  /** ELF: a symbol table is left. */
  symbols?: boolean;
  /** Mach-O: the dynamic linker, the dylibs it loads, the minimum macOS, the code signature's state. */
  dylinker?: string;
  dylibs?: string[];
  minos?: string;
  signature?: string;
}

export function describeBinary(input: string | Buffer): BinaryInfo;
export function platformBinaryProblem(input: string | Buffer, platform: string): string | undefined;
