"""Peer for the index benchmark: datasketch MinHashLSH over the signatures bench-index dumps.

    python3 benches/peers/lsh_peer.py DIR/signatures-100000.bin [...] > peers.json

Each file holds 128 little-endian u32 values per document, in order (`bench-index
--dump-signatures DIR`). Per document: `lsh.query(m)`, then `lsh.insert(key, m)` when the query
found nothing, which is what check-and-insert does (datasketch keeps everything in memory and
verifies nothing: a candidate is a hit). Only the query/insert loop is timed; building the
LeanMinHash objects is not. Prints {"N": {"docs_per_s": ..., "near": ..., "seconds": ...}}.
"""

import json
import sys
import time

import numpy as np
from datasketch import LeanMinHash, MinHashLSH

K = 128


def run(path):
    values = np.fromfile(path, dtype="<u4").astype(np.uint64).reshape(-1, K)
    docs = len(values)
    lsh = MinHashLSH(threshold=0.8, num_perm=K)
    near = 0
    seconds = 0.0
    chunk = 10_000
    for start in range(0, docs, chunk):
        minhashes = [LeanMinHash(seed=1, hashvalues=row, scheme="legacy") for row in values[start : start + chunk]]
        began = time.perf_counter()
        for offset, minhash in enumerate(minhashes):
            if lsh.query(minhash):
                near += 1
            else:
                lsh.insert(start + offset, minhash, check_duplication=False)
        seconds += time.perf_counter() - began
    return docs, {"docs_per_s": docs / seconds, "near": near, "seconds": seconds}


def main():
    out = {}
    for path in sys.argv[1:]:
        docs, result = run(path)
        out[str(docs)] = result
        print(f"  datasketch MinHashLSH, {docs} docs: {result['docs_per_s']:.0f} docs/s", file=sys.stderr)
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
