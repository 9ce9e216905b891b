//! Rotation, resume after a crash (torn tail), and reading damaged files.

use crate::common;

use std::fs::{self, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use common::{
    assert_warcio_check_passes, binary_bytes, fixed_time, request, response, warcio_check,
};
use dedupcrawl_archive::{
    Capture, CaptureLocations, DigestField, ReadError, ReaderOptions, RecordType, WarcCompression,
    WarcReader, WarcRecord, WarcWriter, WarcWriterConfig, repair_tail,
};

fn config(dir: &Path, compression: WarcCompression) -> WarcWriterConfig {
    let mut config = WarcWriterConfig::new(dir, "crawl");
    config.host_name = Some("testhost".into());
    config.compression = compression;
    config
}

/// Writes `count` captures with bodies of `body_len` bytes: incompressible for even ids
/// (gzip stores them), HTML text for odd ones (really deflated).
fn write_captures(
    writer: &mut WarcWriter,
    count: usize,
    body_len: usize,
    first_id: usize,
) -> Vec<CaptureLocations> {
    (first_id..first_id + count)
        .map(|i| {
            let uri = format!("http://example.com/page/{i}");
            let request = request(&format!("/page/{i}"), "example.com");
            let body = if i.is_multiple_of(2) {
                binary_bytes(body_len, i as u64)
            } else {
                common::html_text(body_len, i as u64)
            };
            let head = response(
                200,
                &[
                    ("Content-Type", "application/octet-stream"),
                    ("Content-Length", &body.len().to_string()),
                ],
            );
            let mut capture = Capture::new(&uri, &request, &head, &body);
            capture.fetch_time = fixed_time((i % 60) as u32);
            writer.write_capture(&capture).expect("write capture")
        })
        .collect()
}

fn read_all(path: &Path, verify: bool) -> Vec<Result<WarcRecord, ReadError>> {
    let options = ReaderOptions {
        verify_digests: verify,
        ..ReaderOptions::default()
    };
    WarcReader::open_with_options(path, options)
        .expect("open")
        .collect()
}

fn good_records(items: &[Result<WarcRecord, ReadError>]) -> Vec<&WarcRecord> {
    items.iter().filter_map(|item| item.as_ref().ok()).collect()
}

fn errors(items: &[Result<WarcRecord, ReadError>]) -> Vec<&ReadError> {
    items
        .iter()
        .filter_map(|item| item.as_ref().err())
        .collect()
}

fn serial_of(path: &Path) -> u64 {
    let name = path.file_name().unwrap().to_string_lossy().into_owned();
    name.split('-').nth(2).unwrap().parse().unwrap()
}

#[test]
fn rotation_makes_several_valid_files_each_starting_with_warcinfo() {
    common::require_tools();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut config = config(dir.path(), WarcCompression::Gzip);
    config.max_file_size = 200_000;
    let mut writer = WarcWriter::open(config.clone()).expect("open");
    let captures = write_captures(&mut writer, 40, 30_000, 0);
    let files = writer.close().expect("close");
    assert!(files.len() >= 3, "expected several files, got {files:?}");
    for (i, file) in files.iter().enumerate() {
        assert_eq!(serial_of(file), i as u64 + 1);
        let name = file.file_name().unwrap().to_string_lossy().into_owned();
        // Rotation happens before a write once the limit is reached: at most one capture over.
        let len = fs::metadata(file).unwrap().len();
        assert!(len < 200_000 + 2 * 32_000, "{name} is {len} bytes");
        assert_warcio_check_passes(file);
        let index = common::warcio_index(file);
        assert_eq!(index[0].record_type, "warcinfo", "{name}");
        assert_eq!(index[0].offset, 0);
        let records: Vec<WarcRecord> = read_all(file, true)
            .into_iter()
            .collect::<Result<_, _>>()
            .expect("good file");
        assert_eq!(records[0].record_type(), RecordType::Warcinfo);
        assert_eq!(records[0].headers.get("WARC-Filename"), Some(name.as_str()));
        assert_eq!(
            records
                .iter()
                .filter(|r| r.record_type() == RecordType::Warcinfo)
                .count(),
            1
        );
        // Every record names the warcinfo of its own file.
        let warcinfo_id = records[0].record_id().unwrap();
        assert!(
            records[1..]
                .iter()
                .all(|r| r.headers.get("WARC-Warcinfo-ID") == Some(warcinfo_id))
        );
    }
    // A capture's two records are never split across files, and every capture is somewhere.
    for capture in &captures {
        assert_eq!(capture.response.file_name, capture.request.file_name);
    }
    let total: usize = files
        .iter()
        .map(|f| good_records(&read_all(f, false)).len() - 1)
        .sum();
    assert_eq!(total, captures.len() * 2);

    // A new writer on the same directory continues with the next serial, never appending.
    let mut writer = WarcWriter::open(config).expect("reopen");
    write_captures(&mut writer, 1, 100, 100);
    let more = writer.close().expect("close");
    assert_eq!(serial_of(&more[0]), files.len() as u64 + 1);
}

/// Cuts the file in the middle of the member/record at `offset` with `length`.
fn tear(path: &Path, offset: u64, length: u64) {
    let file = OpenOptions::new().write(true).open(path).expect("open");
    file.set_len(offset + length / 2).expect("truncate");
}

fn torn_tail_is_repaired(compression: WarcCompression) {
    common::require_tools();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut writer = WarcWriter::open(config(dir.path(), compression)).expect("open");
    let captures = write_captures(&mut writer, 4, 20_000, 0);
    let path: PathBuf = writer.close().expect("close").remove(0);
    // Crash while the last request record was being written.
    let last = &captures[3].request;
    tear(&path, last.offset, last.length);
    // Note: warcio does not notice a torn last record (`warcio check` passes and `warcio index`
    // may list it), so the reader and repair_tail must.

    let items = read_all(&path, true);
    assert_eq!(good_records(&items).len(), 1 + 7);
    let problems = errors(&items);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].offset(), last.offset);
    assert_eq!(problems[0].file(), path.as_path());
    let message = problems[0].to_string();
    assert!(message.contains(&path.display().to_string()), "{message}");
    assert!(
        message.contains(&format!("offset {}", last.offset)),
        "{message}"
    );

    let report = repair_tail(&path).expect("repair");
    assert_eq!(report.new_len, last.offset);
    assert_eq!(report.records_kept, 1 + 7);
    assert_eq!(report.bytes_cut(), last.length / 2);
    assert!(report.cut_reason.is_some());
    assert!(report.damage_kept.is_empty());
    assert_eq!(fs::metadata(&path).unwrap().len(), last.offset);
    assert_warcio_check_passes(&path);
    assert_eq!(common::warcio_index(&path).len(), 1 + 7);
    assert!(read_all(&path, true).iter().all(Result::is_ok));

    // Repairing a good file changes nothing.
    let again = repair_tail(&path).expect("repair again");
    assert_eq!(again.bytes_cut(), 0);
    assert!(again.cut_reason.is_none());
}

#[test]
fn torn_gzip_tail_is_repaired() {
    torn_tail_is_repaired(WarcCompression::Gzip);
}

#[test]
fn torn_plain_tail_is_repaired() {
    torn_tail_is_repaired(WarcCompression::None);
}

#[test]
fn resume_repairs_the_last_file_and_starts_a_new_one() {
    common::require_tools();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut writer = WarcWriter::open(config(dir.path(), WarcCompression::Gzip)).expect("open");
    let captures = write_captures(&mut writer, 3, 10_000, 0);
    writer.flush().expect("flush");
    // Simulate kill -9: the writer is leaked, the last member torn.
    let first_file = writer.current_file().expect("open file").to_path_buf();
    std::mem::forget(writer);
    let last = &captures[2].response;
    tear(&first_file, last.offset, last.length);

    let (mut writer, report) =
        WarcWriter::resume(config(dir.path(), WarcCompression::Gzip)).expect("resume");
    let report = report.expect("a file was repaired");
    assert_eq!(report.path, first_file);
    assert_eq!(report.new_len, last.offset);
    write_captures(&mut writer, 1, 1000, 10);
    let new_files = writer.close().expect("close");
    assert_eq!(serial_of(&new_files[0]), 2);
    assert_warcio_check_passes(&first_file);
    assert_warcio_check_passes(&new_files[0]);

    // A crash while the first record of a file was written leaves nothing worth keeping.
    let mut writer = WarcWriter::open(config(dir.path(), WarcCompression::Gzip)).expect("open");
    write_captures(&mut writer, 1, 1000, 20);
    let third = writer.current_file().unwrap().to_path_buf();
    std::mem::forget(writer);
    OpenOptions::new()
        .write(true)
        .open(&third)
        .unwrap()
        .set_len(40)
        .unwrap();
    let (writer, report) =
        WarcWriter::resume(config(dir.path(), WarcCompression::Gzip)).expect("resume");
    assert_eq!(report.expect("repaired").new_len, 0);
    assert!(!third.exists(), "an empty file is removed");
    drop(writer);
}

#[test]
fn corrupt_middle_member_is_reported_and_skipped() {
    common::require_tools();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut writer = WarcWriter::open(config(dir.path(), WarcCompression::Gzip)).expect("open");
    let captures = write_captures(&mut writer, 5, 50_000, 0);
    let path = writer.close().expect("close").remove(0);
    // Overwrite bytes in the middle of two members: a stored (incompressible) body, which only
    // the CRC can catch, and a deflated one, which breaks the decompressor.
    let damaged = [&captures[2].response, &captures[3].response];
    let mut file = OpenOptions::new().write(true).open(&path).expect("open");
    for location in damaged {
        file.seek(SeekFrom::Start(location.offset + location.length / 2))
            .unwrap();
        file.write_all(&[0xAA; 64]).unwrap();
    }
    drop(file);

    let items = read_all(&path, true);
    let problems = errors(&items);
    assert_eq!(problems.len(), 2, "{problems:?}");
    for (problem, (location, capture)) in problems.iter().zip(damaged.iter().zip(&captures[2..])) {
        assert!(
            matches!(problem, ReadError::BadGzipMember { .. }),
            "{problem:?}"
        );
        assert_eq!(problem.offset(), location.offset);
        let message = problem.to_string();
        assert!(message.contains(&path.display().to_string()), "{message}");
        assert!(
            message.contains(&format!("offset {}", location.offset)),
            "{message}"
        );
        assert!(
            message.contains(&format!("resumed at offset {}", capture.request.offset)),
            "{message}"
        );
    }
    // Everything else is read: warcinfo + 10 records - the damaged two.
    let good = good_records(&items);
    assert_eq!(good.len(), 1 + 10 - 2);
    let ids: Vec<&str> = good.iter().filter_map(|r| r.record_id()).collect();
    assert!(!ids.contains(&damaged[0].record_id.as_str()));
    assert!(ids.contains(&captures[4].request.record_id.as_str()));
    assert!(ids.contains(&captures[1].response.record_id.as_str()));
    assert!(ids.contains(&captures[2].request.record_id.as_str()));

    // repair_tail keeps the good records after the damage, and says what it could not fix.
    let report = repair_tail(&path).expect("repair");
    assert_eq!(report.bytes_cut(), 0);
    assert_eq!(report.damage_kept.len(), 2);
}

#[test]
fn corrupt_middle_plain_record_is_reported_and_skipped() {
    let dir = tempfile::tempdir().expect("temp dir");
    let mut writer = WarcWriter::open(config(dir.path(), WarcCompression::None)).expect("open");
    let captures = write_captures(&mut writer, 4, 5_000, 0);
    let path = writer.close().expect("close").remove(0);
    // Destroy the version line and headers of the second response.
    let damaged = &captures[1].response;
    let mut file = OpenOptions::new().write(true).open(&path).expect("open");
    file.seek(SeekFrom::Start(damaged.offset)).unwrap();
    file.write_all(b"XXXX/1.1\r\nGarbage without colon\r\n")
        .unwrap();
    drop(file);
    let items = read_all(&path, true);
    let problems = errors(&items);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].offset(), damaged.offset);
    assert_eq!(good_records(&items).len(), 1 + 8 - 1);
}

#[test]
fn wrong_declared_digest_is_reported() {
    common::require_tools();
    let dir = tempfile::tempdir().expect("temp dir");
    let mut writer = WarcWriter::open(config(dir.path(), WarcCompression::None)).expect("open");
    let captures = write_captures(&mut writer, 3, 2_000, 0);
    let path = writer.close().expect("close").remove(0);
    // Flip one byte of the second response's body (same length: only the digests can tell).
    let target = &captures[1].response;
    let mut data = Vec::new();
    fs::File::open(&path)
        .unwrap()
        .read_to_end(&mut data)
        .unwrap();
    let flip_at = (target.offset + target.length - 10) as usize;
    data[flip_at] ^= 0xFF;
    fs::write(&path, &data).unwrap();

    let (passed, output) = warcio_check(&path);
    assert!(!passed, "warcio also reports it:\n{output}");

    let items = read_all(&path, true);
    let problems = errors(&items);
    assert_eq!(problems.len(), 1);
    match problems[0] {
        ReadError::DigestMismatch {
            offset,
            field,
            record_id,
            record,
            ..
        } => {
            assert_eq!(*offset, target.offset);
            assert_eq!(*field, DigestField::Block);
            assert_eq!(record_id, &target.record_id);
            assert_eq!(record.offset, target.offset);
        }
        other => panic!("unexpected {other:?}"),
    }
    assert!(problems[0].to_string().contains("does not match"));
    assert_eq!(good_records(&items).len(), 1 + 6 - 1);
    // Without verification the record is returned as stored.
    assert!(read_all(&path, false).iter().all(Result::is_ok));
}

/// `gzip_level` is the deflate level of every record: the fastest and the smallest levels
/// both write files warcio accepts, with the same records, and the smallest level writes fewer
/// bytes of the same HTML.
#[test]
fn gzip_level_trades_bytes_and_keeps_the_records() {
    let mut sizes = Vec::new();
    let mut bodies = Vec::new();
    for level in [1, 9] {
        let dir = tempfile::tempdir().expect("tempdir");
        let mut config = config(dir.path(), WarcCompression::Gzip);
        config.gzip_level = level;
        let mut writer = WarcWriter::open(config).expect("open writer");
        // Odd ids only: HTML text, which each level deflates differently.
        for i in 0..20 {
            write_captures(&mut writer, 1, 20_000, 2 * i + 1);
        }
        let files = writer.close().expect("close");
        let path = &files[0];
        assert_warcio_check_passes(path);
        sizes.push(fs::metadata(path).expect("file").len());
        bodies.push(
            read_all(path, true)
                .into_iter()
                .map(|record| record.expect("record reads"))
                .filter(|record| record.record_type() == RecordType::Response)
                .map(|record| record.block)
                .collect::<Vec<_>>(),
        );
    }
    assert_eq!(bodies[0].len(), 20);
    assert_eq!(bodies[0], bodies[1], "the same records at both levels");
    assert!(
        sizes[1] < sizes[0],
        "level 9 smaller than level 1: {sizes:?}"
    );
}
