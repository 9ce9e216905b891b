//! One WARC record parsed from a byte stream: the version line, header fields (bare `\n` and
//! folded lines accepted) and `Content-Length` bytes of block, with the bounds that tell a WARC
//! header from something else.

use std::io::{self, BufRead};

use crate::headers::WarcHeaders;

/// Longest accepted WARC header line; longer means we are not looking at a WARC header.
pub(crate) const MAX_HEADER_LINE: usize = 64 * 1024;
/// Longest accepted WARC header section.
pub(crate) const MAX_HEADER_SECTION: usize = 1024 * 1024;

/// Why a record could not be parsed.
pub(crate) enum ParseFailure {
    /// An I/O error (for gzip input this includes decompression errors).
    Io(io::Error),
    Malformed(String),
}

impl From<io::Error> for ParseFailure {
    fn from(error: io::Error) -> Self {
        ParseFailure::Io(error)
    }
}

pub(crate) struct ParsedRecord {
    pub(crate) version: String,
    pub(crate) headers: WarcHeaders,
    pub(crate) block: Vec<u8>,
}

/// Errors that mean "the data is bad" rather than "the disk failed".
pub(crate) fn is_data_error(error: &io::Error) -> bool {
    matches!(
        error.kind(),
        io::ErrorKind::InvalidInput | io::ErrorKind::InvalidData | io::ErrorKind::UnexpectedEof
    )
}

pub(crate) fn skip_line_breaks(reader: &mut impl BufRead) -> io::Result<()> {
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok(());
        }
        let breaks = buf
            .iter()
            .take_while(|&&b| b == b'\r' || b == b'\n')
            .count();
        let all = breaks == buf.len();
        reader.consume(breaks);
        if !all {
            return Ok(());
        }
    }
}

/// Reads one line (without its `\n` / `\r\n`); `None` at end of data.
pub(crate) fn read_line(reader: &mut impl BufRead) -> Result<Option<Vec<u8>>, ParseFailure> {
    let mut line = Vec::new();
    loop {
        let buf = reader.fill_buf()?;
        if buf.is_empty() {
            return Ok((!line.is_empty()).then_some(line));
        }
        if let Some(newline) = buf.iter().position(|&b| b == b'\n') {
            line.extend_from_slice(&buf[..newline]);
            reader.consume(newline + 1);
            if line.last() == Some(&b'\r') {
                line.pop();
            }
            return Ok(Some(line));
        }
        let taken = buf.len();
        line.extend_from_slice(buf);
        reader.consume(taken);
        if line.len() > MAX_HEADER_LINE {
            return Err(ParseFailure::Malformed(format!(
                "header line longer than {MAX_HEADER_LINE} bytes"
            )));
        }
    }
}

/// Parses one record: version line, header fields (bare `\n` and folded lines accepted) and
/// `Content-Length` bytes of block. The line breaks ending the record are left to the caller.
pub(crate) fn parse_record(
    reader: &mut impl BufRead,
    max_block_size: u64,
) -> Result<Option<ParsedRecord>, ParseFailure> {
    skip_line_breaks(reader)?;
    let Some(version_line) = read_line(reader)? else {
        return Ok(None);
    };
    if !version_line.starts_with(b"WARC/") {
        let shown = String::from_utf8_lossy(&version_line[..version_line.len().min(40)]);
        return Err(ParseFailure::Malformed(format!(
            "expected a WARC/ version line, found {shown:?}"
        )));
    }
    let version = String::from_utf8_lossy(&version_line).trim().to_string();
    let mut headers = WarcHeaders::new();
    let mut header_bytes = 0;
    loop {
        let Some(line) = read_line(reader)? else {
            return Err(ParseFailure::Malformed(
                "data ends inside the record header".to_string(),
            ));
        };
        if line.is_empty() {
            break;
        }
        header_bytes += line.len();
        if header_bytes > MAX_HEADER_SECTION {
            return Err(ParseFailure::Malformed(format!(
                "record header longer than {MAX_HEADER_SECTION} bytes"
            )));
        }
        let text = String::from_utf8_lossy(&line);
        if (line[0] == b' ' || line[0] == b'\t')
            && let Some((_, value)) = headers.last_mut()
        {
            // Folded continuation line (WARC/1.0 allows it).
            value.push(' ');
            value.push_str(text.trim());
            continue;
        }
        let Some((name, value)) = text.split_once(':') else {
            return Err(ParseFailure::Malformed(format!(
                "header line without a colon: {:?}",
                text.chars().take(60).collect::<String>()
            )));
        };
        headers.push(name.trim(), value.trim());
    }
    let content_length = headers
        .get("Content-Length")
        .and_then(|value| value.trim().parse::<u64>().ok())
        .ok_or_else(|| ParseFailure::Malformed("missing or invalid Content-Length".to_string()))?;
    if content_length > max_block_size {
        return Err(ParseFailure::Malformed(format!(
            "block of {content_length} bytes is larger than the limit of {max_block_size}"
        )));
    }
    // Capacity is bounded: a bogus Content-Length must not allocate gigabytes up front.
    let mut block = Vec::with_capacity(content_length.min(8 * 1024 * 1024) as usize);
    // Straight from the reader's buffer: `read_to_end` would zero the spare capacity first.
    while (block.len() as u64) < content_length {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            break;
        }
        let wanted = (content_length - block.len() as u64).min(available.len() as u64) as usize;
        block.extend_from_slice(&available[..wanted]);
        reader.consume(wanted);
    }
    if (block.len() as u64) < content_length {
        return Err(ParseFailure::Malformed(format!(
            "record truncated: block has {} of {content_length} bytes",
            block.len()
        )));
    }
    Ok(Some(ParsedRecord {
        version,
        headers,
        block,
    }))
}
