/**
 * SST's real platform source (platform/src: the components sst.config.ts uses), as the `sst` CLI ships
 * it: embedded in the Go binary of the optional package sst-linux-x64 (a Go embed.FS). `sst install`
 * copies it to .sst/platform, but that needs the internet (it downloads Pulumi), so here it is read out
 * of the binary: the embed.FS file table is an array of { name string; data string; hash [16]byte }
 * (48 bytes on amd64), each string a (virtual address, length) pair, found from one file's name.
 * Undefined where the binary is not installed (another platform): the tests that need it are skipped.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export const SST_BINARY = join(import.meta.dirname, "../../../node_modules/sst-linux-x64/bin/sst");
/** A file every platform has: the table's entry for it is found by its name's address. */
const ANCHOR = "src/components/aws/workflow.ts";
const ENTRY_BYTES = 48;

let extracted: string | undefined;

/** The directory the platform was extracted to (once per process): src/, functions/, package.json, … */
export function realPlatform(): string {
  if (extracted) return extracted;
  const bin = readFileSync(SST_BINARY);
  // ELF64 program headers: the loaded segments map file offsets to virtual addresses.
  const [phoff, phentsize, phnum] = [Number(bin.readBigUInt64LE(0x20)), bin.readUInt16LE(0x36), bin.readUInt16LE(0x38)];
  const segments: { offset: number; vaddr: number; size: number }[] = [];
  for (let i = 0; i < phnum; i++) {
    const at = phoff + i * phentsize;
    if (bin.readUInt32LE(at) === 1) segments.push({ offset: Number(bin.readBigUInt64LE(at + 8)), vaddr: Number(bin.readBigUInt64LE(at + 16)), size: Number(bin.readBigUInt64LE(at + 32)) });
  }
  const toVaddr = (offset: number) => {
    const s = segments.find((s) => offset >= s.offset && offset < s.offset + s.size);
    return s && offset - s.offset + s.vaddr;
  };
  const toOffset = (vaddr: number) => {
    const s = segments.find((s) => vaddr >= s.vaddr && vaddr < s.vaddr + s.size);
    return s && vaddr - s.vaddr + s.offset;
  };
  const nameAt = bin.indexOf(Buffer.from(ANCHOR));
  const nameVaddr = nameAt < 0 ? undefined : toVaddr(nameAt);
  if (nameVaddr === undefined) throw new Error("no platform source in the sst binary");
  const needle = Buffer.alloc(16);
  needle.writeBigUInt64LE(BigInt(nameVaddr), 0);
  needle.writeBigUInt64LE(BigInt(ANCHOR.length), 8);
  let entry = bin.indexOf(needle);
  if (entry < 0) throw new Error("no embed.FS entry for the platform");
  const string = (at: number) => {
    const start = toOffset(Number(bin.readBigUInt64LE(at)));
    const length = Number(bin.readBigUInt64LE(at + 8));
    return start === undefined ? undefined : bin.subarray(start, start + length);
  };
  // An entry is a name of a sensible length at a mapped address; the table runs both ways from the anchor's.
  const valid = (at: number) => at >= 0 && Number(bin.readBigUInt64LE(at + 8)) > 0 && Number(bin.readBigUInt64LE(at + 8)) < 500 && string(at) !== undefined;
  while (valid(entry - ENTRY_BYTES)) entry -= ENTRY_BYTES;
  const out = mkdtempSync(join(tmpdir(), "sst-platform-"));
  for (let at = entry; valid(at); at += ENTRY_BYTES) {
    const name = string(at)!.toString();
    const data = string(at + 16);
    if (name.endsWith("/") || !data?.length) continue;
    const path = join(out, name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, data);
  }
  if (!existsSync(join(out, ANCHOR))) throw new Error("platform extraction failed");
  extracted = out;
  return out;
}
