#!/usr/bin/env python3
"""Python peers for benches/archive/run: read the same WARC files with FastWARC and warcio.

    peers.py MODE FILE...

prints one JSON line {"mode", "records", "bytes", "seconds"} (time measured inside the
process, after imports, as archive-bench-read measures ours). Modes:

  fastwarc-read    every record, whole block read (parse_http=False)
  fastwarc-http    every record, HTTP head parsed, payload read (FastWARC's default)
  fastwarc-verify  fastwarc-http plus WARC-Block-Digest and WARC-Payload-Digest checked
  warcio-read      warcio's ArchiveIterator, HTTP head parsed, payload read (raw_stream)
"""

import json
import sys
import time


def fastwarc(files, parse_http, verify):
    from fastwarc.warc import ArchiveIterator, WarcRecordType

    records = 0
    size = 0
    bad = 0
    start = time.perf_counter()
    for path in files:
        # Verifying: the block digest is checked before the HTTP head is parsed (FastWARC
        # checks only what is left to read), then the head is parsed and the payload checked.
        for record in ArchiveIterator(path, parse_http=parse_http and not verify,
                                      fsspec_args=False):
            records += 1
            if verify:
                # consume=False keeps the block readable after the check.
                if record.headers.get("WARC-Block-Digest") and not record.verify_block_digest():
                    bad += 1
                if record.is_http:
                    record.parse_http()
                    if (record.headers.get("WARC-Payload-Digest")
                            and record.record_type != WarcRecordType.revisit
                            and not record.verify_payload_digest()):
                        bad += 1
            size += len(record.reader.read())
    return records, size, time.perf_counter() - start, bad


def warcio_read(files):
    from warcio.archiveiterator import ArchiveIterator

    records = 0
    size = 0
    start = time.perf_counter()
    for path in files:
        with open(path, "rb") as stream:
            for record in ArchiveIterator(stream):
                records += 1
                size += len(record.raw_stream.read())
    return records, size, time.perf_counter() - start, 0


def main():
    mode, files = sys.argv[1], sys.argv[2:]
    if mode == "fastwarc-read":
        result = fastwarc(files, parse_http=False, verify=False)
    elif mode == "fastwarc-http":
        result = fastwarc(files, parse_http=True, verify=False)
    elif mode == "fastwarc-verify":
        result = fastwarc(files, parse_http=True, verify=True)
    elif mode == "warcio-read":
        result = warcio_read(files)
    else:
        sys.exit(f"unknown mode {mode}")
    records, size, seconds, bad = result
    print(json.dumps({"mode": mode, "records": records, "bytes": size,
                      "seconds": round(seconds, 6), "bad_digests": bad}))


if __name__ == "__main__":
    main()
