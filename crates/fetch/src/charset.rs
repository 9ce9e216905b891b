//! Character encoding of a fetched body: BOM, then `Content-Type` charset, then a
//! `<meta>` prescan of the first 1024 bytes, then a default.
//!
//! Default when nothing declares an encoding: **UTF-8 if the bytes are valid UTF-8**,
//! otherwise windows-1252 (what browsers assume for undeclared Western pages). Browsers
//! would pick windows-1252 even for valid UTF-8, but on today's web an undeclared page whose
//! non-ASCII bytes happen to form valid UTF-8 is almost always UTF-8, and decoding it as
//! windows-1252 would produce mojibake that makes identical pages look different to dedup.
//! Pure ASCII decodes the same either way.

use encoding_rs::{Encoding, UTF_8, UTF_16BE, UTF_16LE, WINDOWS_1252, X_USER_DEFINED};

use crate::FetchedResponse;

/// Where the encoding of a [`DecodedText`] came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum EncodingSource {
    /// A byte order mark (UTF-8, UTF-16LE, UTF-16BE); it wins over any declaration.
    Bom,
    /// The `charset` parameter of the `Content-Type` header.
    Header,
    /// `<meta charset>` or `<meta http-equiv="Content-Type" content="...; charset=...">`
    /// within the first 1024 bytes of an HTML body.
    Meta,
    /// Nothing declared, and the bytes are valid UTF-8.
    ValidUtf8,
    /// Nothing declared and not valid UTF-8: windows-1252, as browsers do.
    Default,
}

/// A body decoded to text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedText {
    /// The text, without BOM; malformed sequences became U+FFFD.
    pub text: String,
    /// The encoding used (ISO-8859-1 and US-ASCII labels give windows-1252, per WHATWG).
    pub encoding: &'static Encoding,
    /// How the encoding was chosen.
    pub source: EncodingSource,
    /// True if some bytes were malformed in that encoding.
    pub had_errors: bool,
}

/// Decodes the body of a response to text (see the module doc for the order of evidence).
/// The `<meta>` prescan is applied only when [`FetchedResponse::is_html`] is true.
pub fn decode_text(response: &FetchedResponse) -> DecodedText {
    let content_type = response.header_last("content-type");
    decode(
        &response.body,
        content_type,
        response.is_html(),
        response.body_truncated,
    )
}

/// Decodes bytes from anywhere (e.g. an HTML file on disk) with the same rules as
/// [`decode_text`]. `content_type` is a raw `Content-Type` value, if known.
pub fn decode_bytes(bytes: &[u8], content_type: Option<&[u8]>, is_html: bool) -> DecodedText {
    decode(bytes, content_type, is_html, false)
}

/// `cut`: the bytes are the start of a longer body, so an incomplete last character does not
/// disprove UTF-8.
fn decode(bytes: &[u8], content_type: Option<&[u8]>, is_html: bool, cut: bool) -> DecodedText {
    let (encoding, source, body) = detect(bytes, content_type, is_html, cut);
    let (text, had_errors) = encoding.decode_without_bom_handling(body);
    DecodedText {
        text: text.into_owned(),
        encoding,
        source,
        had_errors,
    }
}

/// Chooses the encoding; returns the bytes to decode (BOM stripped).
fn detect<'a>(
    bytes: &'a [u8],
    content_type: Option<&[u8]>,
    is_html: bool,
    cut: bool,
) -> (&'static Encoding, EncodingSource, &'a [u8]) {
    if let Some((encoding, bom_len)) = Encoding::for_bom(bytes) {
        return (encoding, EncodingSource::Bom, &bytes[bom_len..]);
    }
    if let Some(encoding) = content_type.and_then(charset_from_content_type) {
        return (encoding, EncodingSource::Header, bytes);
    }
    if is_html && let Some(encoding) = prescan_meta_charset(bytes) {
        return (encoding, EncodingSource::Meta, bytes);
    }
    match std::str::from_utf8(bytes) {
        Ok(_) => (UTF_8, EncodingSource::ValidUtf8, bytes),
        // `error_len() == None`: only the last character is incomplete, as when cut.
        Err(e) if cut && e.error_len().is_none() => (UTF_8, EncodingSource::ValidUtf8, bytes),
        Err(_) => (WINDOWS_1252, EncodingSource::Default, bytes),
    }
}

/// The encoding named by the `charset` parameter of a `Content-Type` value, if it is a known
/// label (`text/html; charset="ISO-8859-1"` gives windows-1252).
pub fn charset_from_content_type(value: &[u8]) -> Option<&'static Encoding> {
    value.split(|&b| b == b';').skip(1).find_map(|param| {
        let eq = param.iter().position(|&b| b == b'=')?;
        let (name, value) = (param[..eq].trim_ascii(), param[eq + 1..].trim_ascii());
        if !name.eq_ignore_ascii_case(b"charset") {
            return None;
        }
        let value = value
            .strip_prefix(b"\"")
            .and_then(|v| v.strip_suffix(b"\""))
            .unwrap_or(value);
        Encoding::for_label(value)
    })
}

fn is_space(b: u8) -> bool {
    matches!(b, 0x09 | 0x0a | 0x0c | 0x0d | 0x20)
}

fn starts_with_ignore_case(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.len() >= needle.len() && haystack[..needle.len()].eq_ignore_ascii_case(needle)
}

fn find(haystack: &[u8], needle: &[u8], from: usize) -> Option<usize> {
    haystack
        .get(from..)?
        .windows(needle.len())
        .position(|w| w == needle)
        .map(|p| p + from)
}

/// The HTML spec's "prescan a byte stream to determine its encoding", over the first 1024
/// bytes: finds `<meta charset>` or a `http-equiv=content-type` pragma, skipping comments
/// and other tags (so a `charset=` inside a comment or a `<script>` attribute is ignored).
pub fn prescan_meta_charset(bytes: &[u8]) -> Option<&'static Encoding> {
    let input = &bytes[..bytes.len().min(1024)];
    let mut pos = 0;
    while pos < input.len() {
        let rest = &input[pos..];
        if rest.starts_with(b"<!--") {
            pos = find(input, b"-->", pos + 2)? + 3;
            continue;
        }
        if starts_with_ignore_case(rest, b"<meta")
            && rest.get(5).is_some_and(|&b| is_space(b) || b == b'/')
        {
            pos += 6;
            if let Some(encoding) = meta_element_charset(input, &mut pos) {
                return Some(encoding);
            }
            continue;
        }
        let next = rest.get(1).copied();
        let after = rest.get(2).copied();
        if rest[0] == b'<'
            && (next.is_some_and(|b| b.is_ascii_alphabetic())
                || (next == Some(b'/') && after.is_some_and(|b| b.is_ascii_alphabetic())))
        {
            // Skip the tag name, then its attributes.
            pos += 1;
            while pos < input.len() && !is_space(input[pos]) && input[pos] != b'>' {
                pos += 1;
            }
            while get_attribute(input, &mut pos).ok()?.is_some() {}
            pos += 1;
            continue;
        }
        if rest.starts_with(b"<!") || rest.starts_with(b"</") || rest.starts_with(b"<?") {
            pos = find(input, b">", pos + 2)? + 1;
            continue;
        }
        pos += 1;
    }
    None
}

/// Reads the attributes of one `<meta>` and returns the encoding it declares, if any.
fn meta_element_charset(input: &[u8], pos: &mut usize) -> Option<&'static Encoding> {
    let mut seen: Vec<Vec<u8>> = Vec::new();
    let mut got_pragma = false;
    let mut need_pragma: Option<bool> = None;
    let mut charset: Option<&'static Encoding> = None;
    // The end of input inside the element ends the prescan: no declaration then.
    while let Some((name, value)) = get_attribute(input, pos).ok()? {
        if seen.contains(&name) {
            continue;
        }
        match name.as_slice() {
            b"http-equiv" if value == b"content-type" => got_pragma = true,
            b"content" if charset.is_none() => {
                if let Some(found) = charset_from_meta_content(&value) {
                    charset = Some(found);
                    need_pragma = Some(true);
                }
            }
            b"charset" if charset.is_none() => {
                charset = Encoding::for_label(&value);
                need_pragma = Some(false);
            }
            _ => {}
        }
        seen.push(name);
    }
    let declared = match need_pragma? {
        true if !got_pragma => return None,
        _ => charset?,
    };
    // A page that says UTF-16 in ASCII bytes is not UTF-16.
    Some(if declared == UTF_16BE || declared == UTF_16LE {
        UTF_8
    } else if declared == X_USER_DEFINED {
        WINDOWS_1252
    } else {
        declared
    })
}

/// A lowercased attribute name and value.
type Attribute = (Vec<u8>, Vec<u8>);

/// The prescanned bytes ended inside a tag.
struct EndOfInput;

/// The spec's "get an attribute". `Ok(None)` at `>` (no more attributes), `Err(EndOfInput)`
/// when the input ends (which ends the prescan).
fn get_attribute(input: &[u8], pos: &mut usize) -> Result<Option<Attribute>, EndOfInput> {
    let byte_at = |p: usize| input.get(p).copied().ok_or(EndOfInput);
    while is_space(byte_at(*pos)?) || byte_at(*pos)? == b'/' {
        *pos += 1;
    }
    if byte_at(*pos)? == b'>' {
        return Ok(None);
    }
    let mut name = Vec::new();
    let mut value = Vec::new();
    loop {
        let b = byte_at(*pos)?;
        if b == b'=' && !name.is_empty() {
            *pos += 1;
            break;
        }
        if is_space(b) {
            while is_space(byte_at(*pos)?) {
                *pos += 1;
            }
            if byte_at(*pos)? != b'=' {
                return Ok(Some((name, value)));
            }
            *pos += 1;
            break;
        }
        if b == b'/' || b == b'>' {
            return Ok(Some((name, value)));
        }
        name.push(b.to_ascii_lowercase());
        *pos += 1;
    }
    while is_space(byte_at(*pos)?) {
        *pos += 1;
    }
    let b = byte_at(*pos)?;
    if b == b'"' || b == b'\'' {
        *pos += 1;
        loop {
            let c = byte_at(*pos)?;
            *pos += 1;
            if c == b {
                return Ok(Some((name, value)));
            }
            value.push(c.to_ascii_lowercase());
        }
    }
    if b == b'>' {
        return Ok(Some((name, value)));
    }
    loop {
        let c = byte_at(*pos)?;
        if is_space(c) || c == b'>' {
            return Ok(Some((name, value)));
        }
        value.push(c.to_ascii_lowercase());
        *pos += 1;
    }
}

/// The spec's "extracting a character encoding from a meta element" (`content` attribute).
fn charset_from_meta_content(content: &[u8]) -> Option<&'static Encoding> {
    let mut pos = 0;
    loop {
        let found = content
            .get(pos..)?
            .windows(7)
            .position(|w| w.eq_ignore_ascii_case(b"charset"))?;
        pos += found + 7;
        while content.get(pos).is_some_and(|&b| is_space(b)) {
            pos += 1;
        }
        if content.get(pos) == Some(&b'=') {
            pos += 1;
            break;
        }
    }
    while content.get(pos).is_some_and(|&b| is_space(b)) {
        pos += 1;
    }
    let rest = content.get(pos..)?;
    let label = match rest.first()? {
        &quote @ (b'"' | b'\'') => {
            let end = rest[1..].iter().position(|&b| b == quote)?;
            &rest[1..1 + end]
        }
        _ => {
            let end = rest
                .iter()
                .position(|&b| is_space(b) || b == b';')
                .unwrap_or(rest.len());
            &rest[..end]
        }
    };
    Encoding::for_label(label)
}

#[cfg(test)]
mod tests {
    use super::*;
    use encoding_rs::{SHIFT_JIS, WINDOWS_1251};

    #[test]
    fn meta_charset_forms() {
        assert_eq!(
            prescan_meta_charset(b"<meta charset=shift_jis>"),
            Some(SHIFT_JIS)
        );
        assert_eq!(
            prescan_meta_charset(b"<META CHARSET='Shift_JIS'/>"),
            Some(SHIFT_JIS)
        );
        assert_eq!(
            prescan_meta_charset(
                b"<html><head><meta http-equiv=\"Content-Type\" content=\"text/html; charset=windows-1251\">"
            ),
            Some(WINDOWS_1251)
        );
        assert_eq!(
            prescan_meta_charset(
                b"<meta content=\"text/html; charset = 'koi8-r'\" http-equiv=content-type>"
            ),
            Some(encoding_rs::KOI8_R)
        );
    }

    #[test]
    fn meta_charset_ignored_where_browsers_ignore_it() {
        // content= without http-equiv is not a pragma.
        assert_eq!(
            prescan_meta_charset(b"<meta content=\"text/html; charset=koi8-r\">"),
            None
        );
        // Inside a comment.
        assert_eq!(
            prescan_meta_charset(b"<!-- <meta charset=koi8-r> --><p>"),
            None
        );
        // In another tag's attribute.
        assert_eq!(
            prescan_meta_charset(b"<div title='<meta charset=koi8-r>'>"),
            None
        );
        // Past 1024 bytes.
        let mut late = vec![b' '; 1030];
        late.extend_from_slice(b"<meta charset=koi8-r>");
        assert_eq!(prescan_meta_charset(&late), None);
        // Unknown label, then a cut tag.
        assert_eq!(prescan_meta_charset(b"<meta charset=bogus>"), None);
        assert_eq!(prescan_meta_charset(b"<meta charset=\"koi8-r"), None);
    }

    #[test]
    fn utf16_meta_means_utf8() {
        assert_eq!(
            prescan_meta_charset(b"<meta charset=utf-16le>"),
            Some(UTF_8)
        );
    }

    #[test]
    fn content_type_charset() {
        assert_eq!(
            charset_from_content_type(b"text/html; charset=\"ISO-8859-1\""),
            Some(WINDOWS_1252)
        );
        assert_eq!(
            charset_from_content_type(b"text/html;Charset=utf-8"),
            Some(UTF_8)
        );
        assert_eq!(charset_from_content_type(b"text/html"), None);
        assert_eq!(
            charset_from_content_type(b"text/html; charset=nonsense"),
            None
        );
    }

    #[test]
    fn order_of_evidence() {
        let bom = b"\xef\xbb\xbfcaf\xc3\xa9";
        let d = decode_bytes(bom, Some(b"text/html; charset=windows-1252"), true);
        assert_eq!((d.text.as_str(), d.source), ("café", EncodingSource::Bom));
        let d = decode_bytes(
            b"<meta charset=utf-8>caf\xe9",
            Some(b"text/html; charset=latin1"),
            true,
        );
        assert_eq!(d.source, EncodingSource::Header);
        assert!(d.text.ends_with("café"));
        let d = decode_bytes(b"caf\xc3\xa9", None, true);
        assert_eq!(
            (d.text.as_str(), d.source),
            ("café", EncodingSource::ValidUtf8)
        );
        let d = decode_bytes(b"caf\xe9", None, true);
        assert_eq!(
            (d.text.as_str(), d.source),
            ("café", EncodingSource::Default)
        );
        // A body cut inside a multi-byte character is still UTF-8, if known to be cut.
        let d = decode(b"caf\xc3\xa9 \xe6\x97", None, true, true);
        assert_eq!(d.source, EncodingSource::ValidUtf8);
        let d = decode(b"caf\xc3\xa9 \xe6\x97", None, true, false);
        assert_eq!(d.source, EncodingSource::Default);
    }
}
