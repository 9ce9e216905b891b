#!/usr/bin/env python3
"""MinHash peers for the signature benchmark: rensa and datasketch on the SAME shingle sets.

Usage: minhash_peers.py SETS_FILE [--reps R] [--num-perm 128]   (prints one JSON object)

SETS_FILE is written by `bench-pipeline --dump-sets` (crates/bench/src/lib.rs, `write_sets`):
magic b"SHSETS01", u64 count, then per set u64 length and the u64 shingle hashes, little-endian.

Both peers hash byte strings, so every shingle hash is fed as its 8-byte little-endian string
(`v.to_bytes(8, "little")`); the lists of bytes objects are built before timing. Timed per set:
constructing the MinHash object and updating it with the whole set (no digest/export):
  * rensa    RMinHash(num_perm=128, seed=42).update(list_of_bytes)
  * rensa    CMinHash(num_perm=128, seed=42).update(list_of_bytes)   (extra: rensa's faster variant)
  * datasketch MinHash(num_perm=128, permutations=<precomputed once>, scheme=<its default>)
               .update_batch(list_of_bytes)
Per-core figures divide by process CPU time (time.process_time) per pass over all sets: best of
R blocks, each repeating the pass until it ran >= 0.5 s.
"""

import json
import struct
import sys
import time


# Set-size buckets (inclusive bounds), also in crates/bench/src/bin/bench-signature.rs.
BUCKETS = [("1", 1, 1), ("2-63", 2, 63), ("64-511", 64, 511), (">=512", 512, 1 << 62)]


def read_sets(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"SHSETS01":
        raise SystemExit(f"{path} is not a shingle-set dump")
    (count,) = struct.unpack_from("<Q", data, 8)
    at = 16
    sets = []
    for _ in range(count):
        (n,) = struct.unpack_from("<Q", data, at)
        at += 8
        chunk = data[at : at + 8 * n]
        sets.append([chunk[i : i + 8] for i in range(0, 8 * n, 8)])
        at += 8 * n
    return sets


def timed(fn, reps, min_seconds=0.5):
    """Seconds (cpu, wall) of one pass: best of `reps` blocks, each block repeating the pass
    until it has run for at least `min_seconds` of CPU."""
    best = None
    for _ in range(reps):
        passes = 0
        c0, w0 = time.process_time(), time.perf_counter()
        while True:
            fn()
            passes += 1
            if time.process_time() - c0 >= min_seconds:
                break
        t = ((time.process_time() - c0) / passes, (time.perf_counter() - w0) / passes)
        if best is None or t[0] < best[0]:
            best = t
    return best


def main():
    args = sys.argv[1:]
    if not args:
        raise SystemExit(__doc__)
    path = args[0]
    reps = int(args[args.index("--reps") + 1]) if "--reps" in args else 2
    k = int(args[args.index("--num-perm") + 1]) if "--num-perm" in args else 128
    sets = read_sets(path)
    shingles = sum(len(s) for s in sets)

    import datasketch
    import rensa
    from importlib.metadata import version

    peers = []

    def run_rensa(sets):
        for s in sets:
            m = rensa.RMinHash(num_perm=k, seed=42)
            m.update(s)

    peers.append((f"rensa {version('rensa')} RMinHash(num_perm={k}).update", run_rensa))

    if hasattr(rensa, "CMinHash"):

        def run_cminhash(sets):
            for s in sets:
                m = rensa.CMinHash(num_perm=k, seed=42)
                m.update(s)

        peers.append((f"rensa {version('rensa')} CMinHash(num_perm={k}).update (extra)", run_cminhash))

    template = datasketch.MinHash(num_perm=k, seed=1)
    permutations = template.permutations
    scheme = getattr(template, "scheme", None)
    extra = {"scheme": scheme} if scheme is not None else {}

    def run_datasketch(sets):
        for s in sets:
            m = datasketch.MinHash(num_perm=k, permutations=permutations, **extra)
            m.update_batch(s)

    peers.append(
        (
            f"datasketch {datasketch.__version__} MinHash(num_perm={k}"
            + (f", scheme={scheme}" if scheme else "")
            + ").update_batch",
            run_datasketch,
        )
    )

    out = {"sets": len(sets), "shingles": shingles, "peers": []}
    for name, fn in peers:
        fn(sets[:50])  # warm-up (allocator, numpy caches)
        cpu, wall = timed(lambda: fn(sets), reps)
        by_size = {}
        for label, lo, hi in BUCKETS:
            part = [s for s in sets if lo <= len(s) <= hi]
            if part:
                by_size[label] = timed(lambda: fn(part), 1, 0.2)[0]
        print(f"  {cpu:.3f}s cpu  {name}", file=sys.stderr)
        out["peers"].append({"name": name, "cpu": cpu, "wall": wall, "by_size_cpu": by_size})
    json.dump(out, sys.stdout)
    print()


if __name__ == "__main__":
    main()
