//! Streaming WARC reader for `.warc.gz` (one member per record, or one gzip stream for the whole
//! file) and plain `.warc`, tolerant of other crawlers' files and of damage.
//!
//! Memory: one record block at a time. Damage is reported as a [`ReadError`] naming file and
//! offset, then the reader resynchronises: at the next gzip member that decompresses to a
//! `WARC/` line (`.warc.gz`), or at the next line starting with `WARC/1.` (`.warc`).

use std::fs::File;
use std::io::{self, BufRead, BufReader, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use flate2::bufread::GzDecoder;

use crate::error::{ArchiveError, ReadError};
use crate::record::WarcRecord;
use crate::record_parser::{
    ParseFailure, ParsedRecord, is_data_error, parse_record, skip_line_breaks,
};

/// Read size of the decompressed-side buffer.
const DECODED_BUFFER: usize = 64 * 1024;
/// Chunk size when scanning for the next record after damage.
const SCAN_CHUNK: usize = 64 * 1024;

/// How a [`WarcReader`] reads.
#[derive(Debug, Clone)]
pub struct ReaderOptions {
    /// Check `WARC-Block-Digest` and `WARC-Payload-Digest` (SHA-1 in base32, hex or base64;
    /// other algorithms are skipped, as are revisit records, whose payload digest is the
    /// original's). A mismatch is yielded as [`ReadError::DigestMismatch`].
    pub verify_digests: bool,
    /// Records with a larger block are reported as malformed and skipped.
    pub max_block_size: u64,
}

impl Default for ReaderOptions {
    fn default() -> Self {
        ReaderOptions {
            verify_digests: false,
            max_block_size: 4 * 1024 * 1024 * 1024,
        }
    }
}

/// A reader position: buffered input plus the absolute offset of the next unread byte.
struct Source<R> {
    inner: BufReader<R>,
    pos: u64,
}

impl<R: Read + Seek> Source<R> {
    fn seek_to(&mut self, pos: u64) -> io::Result<()> {
        self.inner.seek(SeekFrom::Start(pos))?;
        self.pos = pos;
        Ok(())
    }
}

impl<R: Read> Read for Source<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.pos += n as u64;
        Ok(n)
    }
}

impl<R: Read> BufRead for Source<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.inner.fill_buf()
    }

    fn consume(&mut self, amount: usize) {
        self.inner.consume(amount);
        self.pos += amount as u64;
    }
}

/// Buffered reader over decompressed data that can look a few bytes ahead across buffer
/// boundaries (to tell whether a member continues with another record).
struct PeekReader<R> {
    inner: R,
    buf: Box<[u8]>,
    start: usize,
    end: usize,
}

impl<R: Read> PeekReader<R> {
    /// Reads `inner` through `buf` (its contents are ignored): the buffer is passed in so one
    /// allocation serves every gzip member of a file.
    fn with_buffer(inner: R, buf: Box<[u8]>) -> Self {
        PeekReader {
            inner,
            buf,
            start: 0,
            end: 0,
        }
    }

    /// At least `wanted` bytes (fewer only at end of data), without consuming them.
    fn peek(&mut self, wanted: usize) -> io::Result<&[u8]> {
        if self.end - self.start < wanted {
            self.buf.copy_within(self.start..self.end, 0);
            self.end -= self.start;
            self.start = 0;
            while self.end < wanted.min(self.buf.len()) {
                let n = self.inner.read(&mut self.buf[self.end..])?;
                if n == 0 {
                    break;
                }
                self.end += n;
            }
        }
        Ok(&self.buf[self.start..self.end])
    }

    fn into_parts(self) -> (R, Box<[u8]>) {
        (self.inner, self.buf)
    }
}

impl<R: Read> Read for PeekReader<R> {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        let available = self.fill_buf()?;
        let n = available.len().min(out.len());
        out[..n].copy_from_slice(&available[..n]);
        self.consume(n);
        Ok(n)
    }
}

impl<R: Read> BufRead for PeekReader<R> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        if self.start == self.end {
            self.start = 0;
            self.end = self.inner.read(&mut self.buf)?;
        }
        Ok(&self.buf[self.start..self.end])
    }

    fn consume(&mut self, amount: usize) {
        self.start = (self.start + amount).min(self.end);
    }
}

type MemberDecoder<R> = PeekReader<GzDecoder<Source<R>>>;

enum State<R> {
    /// Nothing read yet: the format is decided from the first bytes.
    Start(Source<R>),
    Plain(Source<R>),
    /// `.warc.gz`, at a member boundary.
    GzBetween(Source<R>),
    /// `.warc.gz`, inside a member that already yielded `records_read` records.
    GzInMember {
        decoder: Box<MemberDecoder<R>>,
        member_start: u64,
        records_read: u64,
    },
    Done,
}

/// What one step of the reader's state machine produced.
enum Step {
    Item(Result<WarcRecord, ReadError>),
    /// State changed without producing an item.
    Continue,
    End,
}

/// Streaming iterator over the records of one WARC file.
///
/// Yields `Ok(record)` for every good record and `Err(ReadError)` for each damaged region
/// (then continues after it), so a file with one bad record in the middle still gives all the
/// others.
pub struct WarcReader<R = File> {
    file: Arc<Path>,
    options: ReaderOptions,
    state: State<R>,
    /// The decompressed-side buffer between gzip members (reused, not reallocated per member).
    spare_buffer: Option<Box<[u8]>>,
}

impl WarcReader<File> {
    /// Opens a `.warc`, `.warc.gz` (any gzip layout) file; the format is detected from its
    /// first bytes, not its name.
    pub fn open(path: impl AsRef<Path>) -> Result<Self, ArchiveError> {
        Self::open_with_options(path, ReaderOptions::default())
    }

    /// [`WarcReader::open`] with options.
    pub fn open_with_options(
        path: impl AsRef<Path>,
        options: ReaderOptions,
    ) -> Result<Self, ArchiveError> {
        let path = path.as_ref();
        let file = File::open(path).map_err(|e| ArchiveError::io("open", path, e))?;
        Ok(WarcReader::new(file, path, options))
    }

    /// A reader starting at `offset` (a record offset from a CDXJ index or a
    /// [`crate::RecordLocation`]); its first item is the record there.
    pub fn open_at(
        path: impl AsRef<Path>,
        offset: u64,
        options: ReaderOptions,
    ) -> Result<Self, ArchiveError> {
        let path = path.as_ref();
        let mut file = File::open(path).map_err(|e| ArchiveError::io("open", path, e))?;
        file.seek(SeekFrom::Start(offset))
            .map_err(|e| ArchiveError::io("seek in", path, e))?;
        let mut reader = WarcReader::new(file, path, options);
        if let State::Start(source) = &mut reader.state {
            source.pos = offset;
        }
        Ok(reader)
    }
}

/// Reads the one record stored at `offset` of `path` (random access through an index).
pub fn read_record_at(
    path: impl AsRef<Path>,
    offset: u64,
    options: ReaderOptions,
) -> Result<WarcRecord, ReadError> {
    let path = path.as_ref();
    let mut reader = WarcReader::open_at(path, offset, options).map_err(|e| match e {
        ArchiveError::Io { source, .. } => ReadError::Io {
            file: path.to_path_buf(),
            offset,
            source,
        },
        other => ReadError::Io {
            file: path.to_path_buf(),
            offset,
            source: io::Error::other(other.to_string()),
        },
    })?;
    match reader.next() {
        Some(result) => result,
        None => Err(ReadError::MalformedRecord {
            file: path.to_path_buf(),
            offset,
            reason: "no record at this offset (end of file)".to_string(),
            resumed_at: None,
        }),
    }
}

impl<R: Read + Seek> WarcReader<R> {
    /// A reader over any seekable input; `name` is used in records and errors.
    pub fn new(input: R, name: impl Into<PathBuf>, options: ReaderOptions) -> Self {
        let name: PathBuf = name.into();
        WarcReader {
            file: Arc::from(name.as_path()),
            options,
            state: State::Start(Source {
                inner: BufReader::with_capacity(64 * 1024, input),
                pos: 0,
            }),
            spare_buffer: None,
        }
    }

    /// The file name used in records and errors.
    pub fn file(&self) -> &Path {
        &self.file
    }

    fn io_error(&self, offset: u64, source: io::Error) -> ReadError {
        ReadError::Io {
            file: self.file.to_path_buf(),
            offset,
            source,
        }
    }

    fn finish_record(
        &self,
        parsed: ParsedRecord,
        offset: u64,
        length: Option<u64>,
        end_offset: Option<u64>,
    ) -> Result<WarcRecord, ReadError> {
        let record = WarcRecord {
            file: Arc::clone(&self.file),
            offset,
            length,
            end_offset,
            version: parsed.version,
            headers: parsed.headers,
            block: parsed.block,
        };
        if self.options.verify_digests
            && let Err(mismatch) = record.verify_digests()
        {
            return Err(ReadError::DigestMismatch {
                file: self.file.to_path_buf(),
                offset,
                record_id: record.record_id().unwrap_or("(no id)").to_string(),
                field: mismatch.field,
                declared: mismatch.declared,
                computed: mismatch.computed,
                record: Box::new(record),
            });
        }
        Ok(record)
    }

    /// Skips from `from` to the next gzip member that decompresses to a `WARC/` line.
    fn resync_gzip(&mut self, source: Source<R>, from: u64) -> Result<Option<u64>, ReadError> {
        self.resync(
            source,
            from,
            &[0x1f, 0x8b, 0x08],
            0,
            probe_gzip_member,
            State::GzBetween,
        )
    }

    /// Skips from `from` to the next line starting with `WARC/1.`.
    fn resync_plain(&mut self, source: Source<R>, from: u64) -> Result<Option<u64>, ReadError> {
        self.resync(source, from, b"\nWARC/1.", 1, |_, _| true, State::Plain)
    }

    /// Finds the next `pattern` at or after `from` that `accept` agrees with, and continues
    /// reading there (plus `skip`) in the state `resume` makes; `None` and done at end of file.
    fn resync(
        &mut self,
        mut source: Source<R>,
        from: u64,
        pattern: &[u8],
        skip: u64,
        accept: fn(&mut Source<R>, u64) -> bool,
        resume: fn(Source<R>) -> State<R>,
    ) -> Result<Option<u64>, ReadError> {
        let found = scan_for(&mut source, from, pattern, skip, |source, candidate| {
            Ok(accept(source, candidate))
        })
        .map_err(|e| self.io_error(from, e))?;
        match found {
            Some(offset) => {
                source
                    .seek_to(offset)
                    .map_err(|e| self.io_error(offset, e))?;
                self.state = resume(source);
            }
            None => self.state = State::Done,
        }
        Ok(found)
    }

    /// Leaves a gzip member: keeps its buffer for the next one and gives back the file.
    fn end_member(&mut self, decoder: MemberDecoder<R>) -> Source<R> {
        let (decoder, buffer) = decoder.into_parts();
        self.spare_buffer = Some(buffer);
        decoder.into_inner()
    }

    fn next_gzip_between(&mut self, mut source: Source<R>) -> Step {
        let member_start = source.pos;
        match source.fill_buf() {
            Ok([]) => Step::End,
            Ok(_) => {
                // GzDecoder parses the member header right away; a bad header shows on first read.
                let buffer = self
                    .spare_buffer
                    .take()
                    .unwrap_or_else(|| vec![0; DECODED_BUFFER].into_boxed_slice());
                self.state = State::GzInMember {
                    decoder: Box::new(PeekReader::with_buffer(GzDecoder::new(source), buffer)),
                    member_start,
                    records_read: 0,
                };
                Step::Continue
            }
            Err(error) => Step::Item(Err(self.io_error(member_start, error))),
        }
    }

    fn next_in_member(
        &mut self,
        mut decoder: Box<MemberDecoder<R>>,
        member_start: u64,
        records_read: u64,
    ) -> Step {
        let max_block = self.options.max_block_size;
        let parsed = parse_record(&mut decoder, max_block).and_then(|parsed| {
            skip_line_breaks(&mut decoder)?;
            Ok(parsed)
        });
        match parsed {
            Ok(Some(parsed)) => match decoder.peek(5) {
                Ok([]) => {
                    // Member finished and its CRC checked.
                    let source = self.end_member(*decoder);
                    let end = source.pos;
                    let length = (records_read == 0).then_some(end - member_start);
                    self.state = State::GzBetween(source);
                    Step::Item(self.finish_record(parsed, member_start, length, Some(end)))
                }
                Ok(next) if !next.starts_with(b"WARC/") => self.bad_member_because(
                    *decoder,
                    member_start,
                    "the member continues after its record with data that is not a record \
                     (corrupt data or wrong Content-Length)"
                        .to_string(),
                ),
                Ok(_) => {
                    // Several records in one gzip stream (whole-file compression).
                    self.state = State::GzInMember {
                        decoder,
                        member_start,
                        records_read: records_read + 1,
                    };
                    Step::Item(self.finish_record(parsed, member_start, None, None))
                }
                Err(error) => self.bad_member(*decoder, member_start, error),
            },
            Ok(None) => {
                // Clean end of a member with no (further) record in it.
                self.state = State::GzBetween(self.end_member(*decoder));
                Step::Continue
            }
            Err(ParseFailure::Io(error)) => self.bad_member(*decoder, member_start, error),
            Err(ParseFailure::Malformed(reason)) => {
                // The member itself may be intact: finish it and go on at the next one.
                let drained = io::copy(&mut decoder, &mut io::sink());
                let source = self.end_member(*decoder);
                let resumed_at = match drained {
                    Ok(_) => {
                        let next = source.pos;
                        let more = {
                            let mut source = source;
                            let more = matches!(source.fill_buf(), Ok(rest) if !rest.is_empty());
                            self.state = State::GzBetween(source);
                            more
                        };
                        more.then_some(next)
                    }
                    Err(_) => match self.resync_gzip(source, member_start + 1) {
                        Ok(found) => found,
                        Err(error) => return Step::Item(Err(error)),
                    },
                };
                Step::Item(Err(ReadError::MalformedRecord {
                    file: self.file.to_path_buf(),
                    offset: member_start,
                    reason,
                    resumed_at,
                }))
            }
        }
    }

    fn bad_member(
        &mut self,
        decoder: MemberDecoder<R>,
        member_start: u64,
        error: io::Error,
    ) -> Step {
        if !is_data_error(&error) {
            self.state = State::Done;
            return Step::Item(Err(self.io_error(member_start, error)));
        }
        let reason = if error.kind() == io::ErrorKind::UnexpectedEof {
            format!("member ends early (torn or truncated file): {error}")
        } else {
            error.to_string()
        };
        self.bad_member_because(decoder, member_start, reason)
    }

    fn bad_member_because(
        &mut self,
        decoder: MemberDecoder<R>,
        member_start: u64,
        reason: String,
    ) -> Step {
        let source = self.end_member(decoder);
        match self.resync_gzip(source, member_start + 1) {
            Ok(resumed_at) => Step::Item(Err(ReadError::BadGzipMember {
                file: self.file.to_path_buf(),
                offset: member_start,
                reason,
                resumed_at,
            })),
            Err(error) => Step::Item(Err(error)),
        }
    }

    fn next_plain(&mut self, mut source: Source<R>) -> Step {
        if let Err(error) = skip_line_breaks(&mut source) {
            return Step::Item(Err(self.io_error(source.pos, error)));
        }
        let start = source.pos;
        let failure = match parse_record(&mut source, self.options.max_block_size) {
            Ok(None) => return Step::End,
            Ok(Some(parsed)) => {
                // Like warcio, the length excludes the line breaks that end the record.
                let length = source.pos - start;
                if let Err(error) = skip_line_breaks(&mut source) {
                    return Step::Item(Err(self.io_error(source.pos, error)));
                }
                // Bytes after the record that are not a record (garbage, or the tail of a block
                // whose Content-Length was too small) are reported by the next call.
                let end = source.pos;
                self.state = State::Plain(source);
                return Step::Item(self.finish_record(parsed, start, Some(length), Some(end)));
            }
            Err(ParseFailure::Malformed(reason)) => reason,
            Err(ParseFailure::Io(error)) if is_data_error(&error) => error.to_string(),
            Err(ParseFailure::Io(error)) => return Step::Item(Err(self.io_error(start, error))),
        };
        match self.resync_plain(source, start + 1) {
            Ok(resumed_at) => Step::Item(Err(ReadError::MalformedRecord {
                file: self.file.to_path_buf(),
                offset: start,
                reason: failure,
                resumed_at,
            })),
            Err(error) => Step::Item(Err(error)),
        }
    }
}

impl<R: Read + Seek> Iterator for WarcReader<R> {
    type Item = Result<WarcRecord, ReadError>;

    fn next(&mut self) -> Option<Self::Item> {
        // A loop, not recursion: a file of many empty gzip members must not exhaust the stack.
        loop {
            let step = match std::mem::replace(&mut self.state, State::Done) {
                State::Done => Step::End,
                State::Start(mut source) => {
                    let start = source.pos;
                    match source.fill_buf() {
                        Ok([]) => Step::End,
                        Ok([0x1f, ..]) => {
                            self.state = State::GzBetween(source);
                            Step::Continue
                        }
                        Ok(_) => {
                            self.state = State::Plain(source);
                            Step::Continue
                        }
                        Err(error) => Step::Item(Err(self.io_error(start, error))),
                    }
                }
                State::Plain(source) => self.next_plain(source),
                State::GzBetween(source) => self.next_gzip_between(source),
                State::GzInMember {
                    decoder,
                    member_start,
                    records_read,
                } => self.next_in_member(decoder, member_start, records_read),
            };
            match step {
                Step::Item(item) => return Some(item),
                Step::End => return None,
                Step::Continue => {}
            }
        }
    }
}

/// Does a gzip member start at `candidate` that decompresses to a `WARC/` line?
fn probe_gzip_member<R: Read + Seek>(source: &mut Source<R>, candidate: u64) -> bool {
    if source.seek_to(candidate).is_err() {
        return false;
    }
    let mut decoder = GzDecoder::new(&mut *source);
    let mut start = [0u8; 5];
    decoder.read_exact(&mut start).is_ok() && &start == b"WARC/"
}

/// Finds the first occurrence of `pattern` at or after `from` for which `accept` agrees;
/// returns its offset plus `skip` (the part of the pattern before the wanted position).
fn scan_for<R: Read + Seek>(
    source: &mut Source<R>,
    from: u64,
    pattern: &[u8],
    skip: u64,
    mut accept: impl FnMut(&mut Source<R>, u64) -> io::Result<bool>,
) -> io::Result<Option<u64>> {
    let mut chunk_start = from;
    let mut chunk = vec![0u8; SCAN_CHUNK];
    loop {
        source.seek_to(chunk_start)?;
        let mut filled = 0;
        while filled < chunk.len() {
            let n = source.read(&mut chunk[filled..])?;
            if n == 0 {
                break;
            }
            filled += n;
        }
        let at_end = filled < chunk.len();
        let window = &chunk[..filled];
        let mut search_from = 0;
        while let Some(found) = window[search_from..]
            .windows(pattern.len())
            .position(|candidate| candidate == pattern)
        {
            let candidate = chunk_start + (search_from + found) as u64;
            if accept(source, candidate)? {
                return Ok(Some(candidate + skip));
            }
            search_from += found + 1;
        }
        if at_end {
            return Ok(None);
        }
        // Overlap so a pattern split across chunks is still seen.
        chunk_start += (filled - (pattern.len() - 1)) as u64;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    fn plain_record(body: &str) -> String {
        format!(
            "WARC/1.1\r\nWARC-Type: resource\r\nContent-Length: {}\r\n\r\n{body}\r\n\r\n",
            body.len()
        )
    }

    #[test]
    fn plain_records_and_resync_after_garbage() {
        let mut data = plain_record("one");
        data.push_str("garbage line\r\n");
        let second_at = data.len() as u64;
        data.push_str(&plain_record("two"));
        // Bare \n headers are accepted.
        data.push_str("WARC/1.0\nWARC-Type: resource\nContent-Length: 5\n\nthree\n\n");
        let items: Vec<_> =
            WarcReader::new(Cursor::new(data), "t.warc", ReaderOptions::default()).collect();
        assert_eq!(items.len(), 4, "{items:?}");
        assert_eq!(items[0].as_ref().unwrap().block, b"one");
        match &items[1] {
            Err(ReadError::MalformedRecord {
                offset, resumed_at, ..
            }) => {
                assert_eq!(*offset, plain_record("one").len() as u64);
                assert_eq!(*resumed_at, Some(second_at));
            }
            other => panic!("unexpected {other:?}"),
        }
        assert_eq!(items[2].as_ref().unwrap().block, b"two");
        assert_eq!(items[2].as_ref().unwrap().offset, second_at);
        assert_eq!(items[3].as_ref().unwrap().version, "WARC/1.0");
        assert_eq!(items[3].as_ref().unwrap().block, b"three");
    }

    #[test]
    fn many_empty_gzip_members_do_not_exhaust_the_stack() {
        use flate2::write::GzEncoder;
        use std::io::Write;
        let empty_member = GzEncoder::new(Vec::new(), flate2::Compression::default())
            .finish()
            .unwrap();
        let mut data = empty_member.repeat(200_000);
        let record_at = data.len() as u64;
        let mut encoder = GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(plain_record("x").as_bytes()).unwrap();
        data.extend(encoder.finish().unwrap());
        let items: Vec<_> =
            WarcReader::new(Cursor::new(data), "e.warc.gz", ReaderOptions::default()).collect();
        assert_eq!(items.len(), 1);
        let record = items[0].as_ref().unwrap();
        assert_eq!(
            (record.offset, record.block.as_slice()),
            (record_at, &b"x"[..])
        );
    }

    #[test]
    fn truncated_plain_record_is_reported() {
        let mut data = plain_record("one");
        data.push_str("WARC/1.1\r\nContent-Length: 100\r\n\r\nshort");
        let items: Vec<_> =
            WarcReader::new(Cursor::new(data), "t.warc", ReaderOptions::default()).collect();
        assert_eq!(items.len(), 2);
        assert!(items[0].is_ok());
        let error = items[1].as_ref().unwrap_err();
        assert!(error.to_string().contains("t.warc"), "{error}");
        assert!(error.to_string().contains("truncated"), "{error}");
    }
}
