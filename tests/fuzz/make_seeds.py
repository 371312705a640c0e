#!/usr/bin/env python3
"""Seed corpora for tests/fuzz from files the test suite writes (docs/FORMATS.md).

    make_seeds.py --from DIR [DIR...] --out tests/fuzz/corpus [--max N]

Searches the DIRs (an index folder such as build/test-jit-cache, the CLI tests' work folder with
its packs) for index kernel entries (.tjk), stored signatures (.tjs) and packs (.tjp), and
writes, per fuzzer, up to N seeds of distinct content:
  index_entry_fuzzer       kernel record payloads (the seal removed), and one sealed again
  stored_signature_fuzzer  signature payloads (the dependency list in front removed)
  pack_fuzzer              pack payloads, and one sealed again
  heuristic_program_fuzzer the heuristic program texts the stored signatures hold
Cubins are cut to 16 bytes and Triton's metadata JSON to 64 characters: the readers do not
look inside them, and small seeds keep the fuzzers fast. The hand-written seeds (signatures,
manifests, --args JSON) are committed as they are.
"""
import argparse
import hashlib
import pathlib
import struct

HEADER = 8 + 4 + 4 + 8 + 32  # magic, version, flags, payload size, SHA-256 (src/store/files.cpp)


class Reader:
    def __init__(self, data):
        self.data, self.pos = data, 0

    def take(self, n):
        if self.pos + n > len(self.data):
            raise ValueError("truncated")
        b = self.data[self.pos:self.pos + n]
        self.pos += n
        return b

    def u8(self):
        return self.take(1)[0]

    def u32(self):
        return struct.unpack("<I", self.take(4))[0]

    def u64(self):
        return struct.unpack("<Q", self.take(8))[0]

    def str(self):
        return self.take(self.u32())


def unseal(data):
    return data[HEADER:]


def seal(magic, version, payload):
    return (magic + struct.pack("<IIQ", version, 0, len(payload)) + hashlib.sha256(payload).digest() + payload)


def put_str(b):
    return struct.pack("<I", len(b)) + b


# --- records (src/store/records.cpp) ---------------------------------------------------------

def skip_dependencies(r):
    for _ in range(r.u32()):
        r.str(), r.u64(), r.u64(), r.str(), r.u8()


def skip_value(r):
    r.u8(), r.u64(), r.u64(), r.u64(), r.u8(), r.str(), r.str(), r.u8()


def skip_ints(r):
    for _ in range(r.u32()):
        r.u32()


def read_signature(r, programs):
    """Skips a signature, collecting its heuristic programs."""
    r.str(), r.str(), r.u32()
    n = r.u32()
    for _ in range(n):
        r.str(), r.u32()
        flags = r.u8()
        r.str(), r.str()
        if flags & 16:
            skip_value(r)
    for _ in range(r.u32()):
        if r.u8() == 0:  # heuristics
            for _ in range(r.u32()):
                r.str(), r.u32()
                programs.append(r.str())
                r.str(), r.str()
            continue
        skip_ints(r)
        for _ in range(r.u32()):
            for _ in range(r.u32()):
                r.u32()
                skip_value(r)
            r.u32(), r.u32(), r.u32()
            for _ in range(r.u32()):
                r.str()
                kind = r.u8()
                if kind == 0 or kind == 2:
                    r.u64()
                elif kind == 1:
                    r.u8()
                else:
                    r.str()
            r.u8(), r.str()
        skip_ints(r), skip_ints(r)
        r.u8(), r.u64(), r.u64(), r.u64()


def shrink_kernel_record(r):
    """Reads one kernel record, returning its bytes with the cubin and metadata cut."""
    out = bytearray()
    start = r.pos
    r.str(), r.str()                                   # function path, name
    r.str(), r.u32(), r.u32(), r.u32(), r.str(), r.str(), r.u32(), r.u32()  # key
    skip_dependencies(r)
    r.u64()                                            # created
    r.str(), r.str(), r.u32(), r.u32()                 # name, target
    out += r.data[start:r.pos]
    out += put_str(r.str()[:16])                       # cubin
    start = r.pos
    r.u32(), r.u32(), r.u32()                          # num_warps, num_ctas, shared
    r.u32(), r.u32(), r.u32()                          # cluster dims
    r.u64(), r.u64(), r.u64(), r.u64()                 # scratch sizes and alignments
    r.u8(), r.u8()                                     # pdl, cooperative grid
    for _ in range(r.u32()):
        r.str()                                        # scratch params
    r.str(), r.str()                                   # hash, triton version
    out += r.data[start:r.pos]
    out += put_str(r.str()[:64])                       # metadata JSON
    start = r.pos
    for _ in range(r.u32()):                           # tensor descriptor metadata
        r.u32(), r.u32(), r.u32()
        for _ in range(r.u32()):
            r.u32()
        r.u8()
    for _ in range(r.u32()):
        r.str()                                        # tensor descriptor scalars
    out += r.data[start:r.pos]
    return bytes(out)


def shrink_pack(payload, programs):
    r = Reader(payload)
    out = bytearray()
    start = r.pos
    for _ in range(r.u32()):
        r.str(), r.str(), r.str()
        read_signature(r, programs)
        for _ in range(r.u32()):
            r.str()
            for _ in range(r.u32()):
                r.str(), r.str()
    out += r.data[start:r.pos]
    n = r.u32()
    out += struct.pack("<I", n)
    for _ in range(n):
        out += struct.pack("<I", r.u32())
        out += shrink_kernel_record(r)
    if r.pos != len(payload):
        raise ValueError("trailing bytes")
    return bytes(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--from", dest="sources", nargs="+", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--max", type=int, default=12)
    args = ap.parse_args()
    out = pathlib.Path(args.out)
    seeds = {k: {} for k in ("index_entry_fuzzer", "stored_signature_fuzzer", "pack_fuzzer",
                             "heuristic_program_fuzzer")}

    def add(fuzzer, data, prefix):
        digest = hashlib.sha1(data).hexdigest()[:16]
        if len(seeds[fuzzer]) < args.max or prefix == "sealed":
            seeds[fuzzer].setdefault(f"{prefix}-{digest}", data)

    programs = []
    for src in args.sources:
        for path in sorted(pathlib.Path(src).rglob("*")):
            if not path.is_file():
                continue
            data = path.read_bytes()
            try:
                if path.suffix == ".tjk" and data[:8] == b"TJITKRNL":
                    record = shrink_kernel_record(Reader(unseal(data)))
                    add("index_entry_fuzzer", record, "record")
                    if not any(k.startswith("sealed") for k in seeds["index_entry_fuzzer"]):
                        add("index_entry_fuzzer", seal(data[:8], struct.unpack("<I", data[8:12])[0], record), "sealed")
                elif path.suffix == ".tjs" and data[:8] == b"TJITSIGN":
                    r = Reader(unseal(data))
                    skip_dependencies(r)
                    start = r.pos
                    read_signature(r, programs)
                    add("stored_signature_fuzzer", r.data[start:r.pos], "signature")
                elif path.suffix == ".tjp" and data[:8] == b"TJITPACK":
                    pack = shrink_pack(unseal(data), programs)
                    add("pack_fuzzer", pack, "payload")
                    if not any(k.startswith("sealed") for k in seeds["pack_fuzzer"]):
                        add("pack_fuzzer", seal(data[:8], struct.unpack("<I", data[8:12])[0], pack), "sealed")
            except ValueError as e:
                print(f"skipped {path}: {e}")
    for p in programs:
        add("heuristic_program_fuzzer", p, "program")
    for fuzzer, files in seeds.items():
        d = out / fuzzer
        d.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            (d / name).write_bytes(data)
        print(f"{fuzzer}: {len(files)} seeds")


if __name__ == "__main__":
    main()
