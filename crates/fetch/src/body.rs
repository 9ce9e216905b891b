//! Streaming content decoding (gzip, deflate, br) with a hard cap on the decoded size.
//!
//! reqwest can decode these itself, but it then deletes `Content-Encoding` and
//! `Content-Length` from the response headers (and reorders the rest), so the archive could
//! not record the headers as received nor tell that the body was decoded. Decoding here keeps
//! the headers intact and applies `max_body_bytes` to the decoded bytes.

use std::io::{self, Write};

/// A `Content-Encoding` this crate decodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum ContentCoding {
    Gzip,
    Deflate,
    Brotli,
}

impl ContentCoding {
    /// Parses a `Content-Encoding` value. `None` for identity, unknown codings and stacked
    /// codings ("gzip, br"), whose bodies are kept as sent.
    pub(crate) fn from_header(value: &[u8]) -> Option<ContentCoding> {
        let value = std::str::from_utf8(value).ok()?.trim();
        if value.eq_ignore_ascii_case("gzip") || value.eq_ignore_ascii_case("x-gzip") {
            Some(ContentCoding::Gzip)
        } else if value.eq_ignore_ascii_case("deflate") {
            Some(ContentCoding::Deflate)
        } else if value.eq_ignore_ascii_case("br") {
            Some(ContentCoding::Brotli)
        } else {
            None
        }
    }

    pub(crate) fn name(self) -> &'static str {
        match self {
            ContentCoding::Gzip => "gzip",
            ContentCoding::Deflate => "deflate",
            ContentCoding::Brotli => "br",
        }
    }
}

/// Collects decoded bytes up to `limit`; past it, keeps what fits, remembers the overflow and
/// fails the write so the decompressor stops at once instead of inflating a bomb.
#[derive(Debug)]
struct CappedSink {
    bytes: Vec<u8>,
    limit: usize,
    overflowed: bool,
}

impl CappedSink {
    fn new(limit: usize) -> Self {
        CappedSink {
            bytes: Vec::new(),
            limit,
            overflowed: false,
        }
    }
}

impl CappedSink {
    /// Grows like `Vec` (doubling) but never allocates past the limit.
    fn reserve_within_limit(&mut self, additional: usize) {
        let needed = self.bytes.len() + additional;
        if needed > self.bytes.capacity() {
            let target = needed.max(self.bytes.capacity() * 2).min(self.limit);
            self.bytes.reserve_exact(target - self.bytes.len());
        }
    }
}

impl Write for CappedSink {
    fn write(&mut self, data: &[u8]) -> io::Result<usize> {
        let room = self.limit - self.bytes.len();
        let accepted = data.len().min(room);
        self.reserve_within_limit(accepted);
        self.bytes.extend_from_slice(&data[..accepted]);
        if accepted == data.len() {
            return Ok(accepted);
        }
        self.overflowed = true;
        Err(io::Error::other("body limit reached"))
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

enum Decoder {
    Identity(CappedSink),
    Gzip(flate2::write::GzDecoder<CappedSink>),
    /// HTTP "deflate" should be zlib-wrapped but some servers send raw deflate: wait for the
    /// first two bytes to tell which.
    DeflatePending(CappedSink, Vec<u8>),
    Zlib(flate2::write::ZlibDecoder<CappedSink>),
    RawDeflate(flate2::write::DeflateDecoder<CappedSink>),
    Brotli(Box<brotli::DecompressorWriter<CappedSink>>),
}

/// Whether more body may be fed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Progress {
    Continue,
    /// The decoded body reached the limit and there is more: the sink holds the first
    /// `limit` bytes.
    LimitReached,
}

pub(crate) struct BodyDecoder {
    decoder: Decoder,
}

impl BodyDecoder {
    pub(crate) fn new(coding: Option<ContentCoding>, limit: u64) -> Self {
        let limit = usize::try_from(limit).unwrap_or(usize::MAX);
        let sink = CappedSink::new(limit);
        let decoder = match coding {
            None => Decoder::Identity(sink),
            Some(ContentCoding::Gzip) => Decoder::Gzip(flate2::write::GzDecoder::new(sink)),
            Some(ContentCoding::Deflate) => Decoder::DeflatePending(sink, Vec::new()),
            Some(ContentCoding::Brotli) => {
                Decoder::Brotli(Box::new(brotli::DecompressorWriter::new(sink, 16 * 1024)))
            }
        };
        BodyDecoder { decoder }
    }

    /// Makes room for a body announced as `length` bytes (`Content-Length`, no content
    /// coding), within the limit: the buffer then never doubles past the body (a 17 MB page
    /// held 32 MB of buffer). A `Content-Length` that lies costs at most the limit, as the
    /// body itself may.
    pub(crate) fn expect_identity_length(&mut self, length: u64) {
        if let Decoder::Identity(sink) = &mut self.decoder {
            let length = usize::try_from(length)
                .unwrap_or(usize::MAX)
                .min(sink.limit);
            sink.bytes
                .reserve_exact(length.saturating_sub(sink.bytes.len()));
        }
    }

    /// Feeds one chunk of the body as received on the wire.
    pub(crate) fn push(&mut self, chunk: &[u8]) -> io::Result<Progress> {
        if let Decoder::DeflatePending(sink, head) = &mut self.decoder {
            head.extend_from_slice(chunk);
            if head.len() < 2 {
                return Ok(Progress::Continue);
            }
            let buffered = std::mem::take(head);
            let sink = std::mem::replace(sink, CappedSink::new(0));
            self.decoder = if looks_like_zlib(buffered[0], buffered[1]) {
                Decoder::Zlib(flate2::write::ZlibDecoder::new(sink))
            } else {
                Decoder::RawDeflate(flate2::write::DeflateDecoder::new(sink))
            };
            return self.push(&buffered);
        }
        let result = match &mut self.decoder {
            Decoder::Identity(sink) => write_until_end(sink, chunk),
            Decoder::Gzip(d) => write_until_end(d, chunk),
            Decoder::Zlib(d) => write_until_end(d, chunk),
            Decoder::RawDeflate(d) => write_until_end(d, chunk),
            Decoder::Brotli(d) => write_until_end(d.as_mut(), chunk),
            // Handled above: it becomes Zlib or RawDeflate once two bytes are known.
            Decoder::DeflatePending(..) => Ok(()),
        };
        self.check(result)
    }

    /// Ends the stream: flushes the decompressor and checks the stream was complete.
    /// Returns the body and whether it was cut at the limit.
    pub(crate) fn finish(mut self) -> io::Result<(Vec<u8>, bool)> {
        let result = match &mut self.decoder {
            Decoder::Identity(_) => Ok(()),
            Decoder::Gzip(d) => d.try_finish(),
            Decoder::Zlib(d) => d.try_finish(),
            Decoder::RawDeflate(d) => d.try_finish(),
            Decoder::Brotli(d) => d.close(),
            Decoder::DeflatePending(_, head) if head.is_empty() => Ok(()),
            Decoder::DeflatePending(..) => Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "deflate stream shorter than two bytes",
            )),
        };
        let progress = self.check(result)?;
        let truncated = progress == Progress::LimitReached;
        Ok((self.into_partial(), truncated))
    }

    /// The decoded bytes so far (at most `limit`), without finishing the stream.
    pub(crate) fn into_partial(mut self) -> Vec<u8> {
        std::mem::take(&mut self.sink_mut().bytes)
    }

    fn sink_mut(&mut self) -> &mut CappedSink {
        match &mut self.decoder {
            Decoder::Identity(sink) | Decoder::DeflatePending(sink, _) => sink,
            Decoder::Gzip(d) => d.get_mut(),
            Decoder::Zlib(d) => d.get_mut(),
            Decoder::RawDeflate(d) => d.get_mut(),
            Decoder::Brotli(d) => d.get_mut(),
        }
    }

    /// Turns the sink's overflow error into `LimitReached`; other errors are corrupt data.
    fn check(&mut self, result: io::Result<()>) -> io::Result<Progress> {
        if self.sink_mut().overflowed {
            return Ok(Progress::LimitReached);
        }
        result.map(|()| Progress::Continue)
    }
}

/// Writes all of `data`, stopping quietly if the decoder reports the end of its stream
/// (`Ok(0)`): trailing bytes after a complete gzip member are ignored, as curl does.
fn write_until_end<W: Write + ?Sized>(writer: &mut W, mut data: &[u8]) -> io::Result<()> {
    while !data.is_empty() {
        let written = writer.write(data)?;
        if written == 0 {
            break;
        }
        data = &data[written..];
    }
    Ok(())
}

/// RFC 1950 header: compression method 8 and a header checksum divisible by 31.
fn looks_like_zlib(cmf: u8, flg: u8) -> bool {
    cmf & 0x0f == 8 && (u16::from(cmf) << 8 | u16::from(flg)) % 31 == 0
}

/// Decodes a body stored with the `Content-Encoding` it was sent with (gzip, deflate, br; other
/// or no codings return the bytes unchanged), keeping at most `limit` decoded bytes. For bodies
/// read back from archives written by other crawlers, which store them as received.
pub fn decode_content_encoding(
    body: &[u8],
    content_encoding: Option<&[u8]>,
    limit: u64,
) -> io::Result<(Vec<u8>, bool)> {
    let coding = content_encoding.and_then(ContentCoding::from_header);
    let mut decoder = BodyDecoder::new(coding, limit);
    if decoder.push(body)? == Progress::LimitReached {
        return Ok((decoder.into_partial(), true));
    }
    decoder.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use flate2::Compression;

    fn encode_gzip(data: &[u8]) -> Vec<u8> {
        let mut e = flate2::write::GzEncoder::new(Vec::new(), Compression::default());
        e.write_all(data).unwrap();
        e.finish().unwrap()
    }

    fn decode_in_chunks(
        coding: ContentCoding,
        wire: &[u8],
        limit: u64,
        chunk: usize,
    ) -> io::Result<(Vec<u8>, bool)> {
        let mut d = BodyDecoder::new(Some(coding), limit);
        for piece in wire.chunks(chunk) {
            if d.push(piece)? == Progress::LimitReached {
                return Ok((d.into_partial(), true));
            }
        }
        d.finish()
    }

    #[test]
    fn gzip_in_one_byte_chunks() {
        let text = b"hello hello hello world".repeat(50);
        let (out, truncated) =
            decode_in_chunks(ContentCoding::Gzip, &encode_gzip(&text), 1 << 20, 1).unwrap();
        assert_eq!(out, text);
        assert!(!truncated);
    }

    #[test]
    fn gzip_bomb_stops_at_limit() {
        let zeros = vec![0u8; 50 << 20];
        let wire = encode_gzip(&zeros);
        let (out, truncated) = decode_in_chunks(ContentCoding::Gzip, &wire, 1000, 8192).unwrap();
        assert_eq!(out.len(), 1000);
        assert!(truncated);
    }

    #[test]
    fn exact_limit_is_not_truncated() {
        let mut d = BodyDecoder::new(None, 4);
        assert_eq!(d.push(b"ab").unwrap(), Progress::Continue);
        assert_eq!(d.push(b"cd").unwrap(), Progress::Continue);
        assert_eq!(d.finish().unwrap(), (b"abcd".to_vec(), false));
        let mut d = BodyDecoder::new(None, 4);
        assert_eq!(d.push(b"abcde").unwrap(), Progress::LimitReached);
        let partial = d.into_partial();
        assert_eq!(partial, b"abcd");
        assert_eq!(partial.capacity(), 4, "never allocates past the limit");
    }

    #[test]
    fn raw_and_zlib_deflate() {
        let text = b"deflate me, deflate me".repeat(20);
        let mut z = flate2::write::ZlibEncoder::new(Vec::new(), Compression::default());
        z.write_all(&text).unwrap();
        let zlib = z.finish().unwrap();
        let mut r = flate2::write::DeflateEncoder::new(Vec::new(), Compression::default());
        r.write_all(&text).unwrap();
        let raw = r.finish().unwrap();
        for wire in [zlib, raw] {
            let (out, _) = decode_in_chunks(ContentCoding::Deflate, &wire, 1 << 20, 1).unwrap();
            assert_eq!(out, text);
        }
    }

    #[test]
    fn truncated_gzip_is_an_error() {
        let wire = encode_gzip(&b"some text that compresses".repeat(100));
        let cut = &wire[..wire.len() / 2];
        assert!(decode_in_chunks(ContentCoding::Gzip, cut, 1 << 20, 64).is_err());
    }

    #[test]
    fn brotli_round_trip() {
        let text = "brotli ünïcödé ".repeat(100).into_bytes();
        let mut w = brotli::CompressorWriter::new(Vec::new(), 4096, 5, 22);
        w.write_all(&text).unwrap();
        let wire = w.into_inner();
        let (out, _) = decode_in_chunks(ContentCoding::Brotli, &wire, 1 << 20, 7).unwrap();
        assert_eq!(out, text);
    }
}
