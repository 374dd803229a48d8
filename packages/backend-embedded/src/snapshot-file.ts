/**
 * A file of named typed arrays and a JSON header: how the memory index is saved for a fast start.
 * Layout: 8 bytes of magic, a u32 header length, the header (JSON: the caller's meta and where each
 * array lies), then each array's bytes at an 8-byte aligned offset. Arrays are read one by one into
 * arrays of their own (no 4 GiB Buffer limit, no copies beyond the read), or mapped from the file in
 * parts (no read at all: the page cache's copy, shared by every process).
 */
import { closeSync, openSync, readSync, renameSync, writeSync } from "node:fs";
import { mapFile } from "@orgsim/native-kernel";

const MAGIC = Buffer.from("ORGSIMS1");
const ARRAY_TYPES = { Float64Array, Float32Array, Int32Array, Uint32Array, Uint16Array, Uint8Array } as const;
type ArrayTypeName = keyof typeof ARRAY_TYPES;
export type SnapshotArray = InstanceType<(typeof ARRAY_TYPES)[ArrayTypeName]>;

interface Placement {
  type: ArrayTypeName;
  offset: number;
  length: number;
}

/** Reads a snapshot's arrays by name. */
export interface SnapshotReader {
  array<T extends SnapshotArray>(name: string): T;
  /** Elements in array `name`. */
  lengthOf(name: string): number;
  /**
   * Array `name` mapped from the file copy on write (writes stay in this process), in parts of
   * `elementsPerPart` elements (the last may be shorter; one empty part for an empty array). Valid
   * after `close` and after the file is replaced: it is only ever replaced whole, by a rename.
   */
  mapped<T extends SnapshotArray>(name: string, elementsPerPart: number): T[];
}

interface Header<M> {
  meta: M;
  arrays: Record<string, Placement>;
}

const align8 = (n: number) => Math.ceil(n / 8) * 8;
/** fs reads and writes at most about 2 GiB a call. */
const CHUNK = 1 << 30;

/** Writes `arrays` and `meta` to `file` through a temporary file and a rename: a reader sees a whole file or none. */
export function writeSnapshot<M>(file: string, meta: M, arrays: Record<string, SnapshotArray | SnapshotArray[]>): void {
  const chunked = Object.entries(arrays).map(([name, array]) => [name, Array.isArray(array) ? array : [array]] as const);
  const placements: Record<string, Placement> = {};
  const probe = (offset: number) => {
    let at = offset;
    for (const [name, chunks] of chunked) {
      const type = (chunks[0]?.constructor.name ?? "Float32Array") as ArrayTypeName;
      if (chunks.some((chunk) => chunk.constructor.name !== type)) throw new Error(`snapshot array "${name}" mixes element types`);
      const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
      placements[name] = { type, offset: at, length };
      at = align8(at + length * ARRAY_TYPES[type].BYTES_PER_ELEMENT);
    }
  };
  // The header holds the offsets, which depend on the header's own length: settle it in two passes.
  probe(0);
  let headerBytes = Buffer.from(JSON.stringify({ meta, arrays: placements } satisfies Header<M>));
  const start = align8(MAGIC.length + 4 + headerBytes.length + 64);
  probe(start);
  headerBytes = Buffer.from(JSON.stringify({ meta, arrays: placements } satisfies Header<M>));
  if (MAGIC.length + 4 + headerBytes.length > start) throw new Error("snapshot header outgrew its room");

  const temporary = `${file}.${process.pid}.tmp`;
  const fd = openSync(temporary, "w");
  try {
    const length = Buffer.alloc(4);
    length.writeUInt32LE(headerBytes.length);
    writeSync(fd, Buffer.concat([MAGIC, length, headerBytes]), 0, undefined, 0);
    for (const [name, chunks] of chunked) {
      let at = (placements[name] as Placement).offset;
      for (const chunk of chunks) {
        const bytes = new Uint8Array(chunk.buffer, chunk.byteOffset, chunk.byteLength);
        for (let done = 0; done < bytes.length; ) done += writeSync(fd, bytes, done, Math.min(CHUNK, bytes.length - done), at + done);
        at += bytes.length;
      }
    }
  } finally {
    closeSync(fd);
  }
  renameSync(temporary, file);
}

/** The meta of a snapshot file, and a reader of its arrays by name. Throws when the file is not a whole snapshot. */
export function readSnapshot<M>(file: string): SnapshotReader & { meta: M; close(): void } {
  const fd = openSync(file, "r");
  try {
    const start = Buffer.alloc(MAGIC.length + 4);
    readSync(fd, start, 0, start.length, 0);
    if (!start.subarray(0, MAGIC.length).equals(MAGIC)) throw new Error(`${file} is not an orgsim snapshot`);
    const headerBytes = Buffer.alloc(start.readUInt32LE(MAGIC.length));
    readSync(fd, headerBytes, 0, headerBytes.length, start.length);
    const header = JSON.parse(headerBytes.toString("utf8")) as Header<M>;
    const placementOf = (name: string): Placement => {
      const placement = header.arrays[name];
      if (!placement) throw new Error(`${file} holds no array "${name}"`);
      return placement;
    };
    const readInto = (name: string, target: SnapshotArray, from: number): void => {
      const placement = placementOf(name);
      if (target.constructor.name !== placement.type) throw new Error(`${file}: array "${name}" is a ${placement.type}, not a ${target.constructor.name}`);
      if (from < 0 || from + target.length > placement.length) throw new Error(`${file}: array "${name}" has no elements ${from} to ${from + target.length}`);
      const bytes = new Uint8Array(target.buffer, target.byteOffset, target.byteLength);
      const offset = placement.offset + from * target.BYTES_PER_ELEMENT;
      for (let done = 0; done < bytes.length; ) {
        const read = readSync(fd, bytes, done, Math.min(CHUNK, bytes.length - done), offset + done);
        if (read === 0) throw new Error(`${file} ends inside array "${name}"`);
        done += read;
      }
    };
    return {
      meta: header.meta,
      lengthOf: (name) => placementOf(name).length,
      mapped<T extends SnapshotArray>(name: string, elementsPerPart: number): T[] {
        const placement = placementOf(name);
        const Type = ARRAY_TYPES[placement.type];
        const parts: T[] = placement.length === 0 ? [new Type(0) as T] : [];
        for (let from = 0; from < placement.length; from += elementsPerPart) {
          const length = Math.min(elementsPerPart, placement.length - from);
          parts.push(new Type(mapFile(file, placement.offset + from * Type.BYTES_PER_ELEMENT, length * Type.BYTES_PER_ELEMENT)) as T);
        }
        return parts;
      },
      array<T extends SnapshotArray>(name: string): T {
        const placement = placementOf(name);
        const array = new ARRAY_TYPES[placement.type](placement.length);
        readInto(name, array, 0);
        return array as T;
      },
      close: () => closeSync(fd),
    };
  } catch (error) {
    closeSync(fd);
    throw error;
  }
}
