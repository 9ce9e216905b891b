//! `sha1:BASE32` digests as WARC writers (warcio, Heritrix, wget) record them, and verification
//! of declared digests written in the other encodings found in the wild (hex, base64).

use data_encoding::{BASE32, BASE64, BASE64_NOPAD, HEXLOWER_PERMISSIVE};
use sha1::{Digest, Sha1};

/// `sha1:` + RFC 4648 base32 (uppercase, 32 characters) of `data`.
///
/// ```
/// assert_eq!(dedupcrawl_archive::sha1_digest(b""), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
/// ```
pub fn sha1_digest(data: &[u8]) -> String {
    format_sha1(&Sha1::digest(data).into())
}

pub(crate) fn format_sha1(raw: &[u8; 20]) -> String {
    format!("sha1:{}", BASE32.encode(raw))
}

/// Incremental SHA-1 for a block written in several parts.
#[derive(Default)]
pub(crate) struct Sha1Digester(Sha1);

impl Sha1Digester {
    pub(crate) fn update(&mut self, data: &[u8]) {
        self.0.update(data);
    }

    pub(crate) fn finish(self) -> String {
        format_sha1(&self.0.finalize().into())
    }
}

/// Outcome of checking a declared digest against content.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum DigestCheck {
    Match,
    /// Mismatch; carries the computed `sha1:` base32 digest.
    Mismatch(String),
    /// Algorithm other than SHA-1, or a value that cannot be decoded: not checked.
    Unsupported,
}

/// Decodes a declared `sha1:...` value (base32, hex or base64) into the raw 20 bytes.
pub(crate) fn decode_sha1(declared: &str) -> Option<[u8; 20]> {
    let (algorithm, value) = declared.trim().split_once(':')?;
    let algorithm = algorithm.to_ascii_lowercase();
    if algorithm != "sha1" && algorithm != "sha-1" {
        return None;
    }
    let value = value.trim();
    let decoded = match value.len() {
        32 => BASE32.decode(value.to_ascii_uppercase().as_bytes()).ok()?,
        40 => HEXLOWER_PERMISSIVE.decode(value.as_bytes()).ok()?,
        28 => BASE64.decode(value.as_bytes()).ok()?,
        27 => BASE64_NOPAD.decode(value.as_bytes()).ok()?,
        _ => return None,
    };
    decoded.try_into().ok()
}

/// True when two declared digests denote the same SHA-1 value, whatever their encodings.
pub(crate) fn same_sha1(a: &str, b: &str) -> bool {
    match (decode_sha1(a), decode_sha1(b)) {
        (Some(x), Some(y)) => x == y,
        _ => a.trim() == b.trim(),
    }
}

pub(crate) fn check_digest(declared: &str, data: &[u8]) -> DigestCheck {
    let Some(expected) = decode_sha1(declared) else {
        return DigestCheck::Unsupported;
    };
    let actual: [u8; 20] = Sha1::digest(data).into();
    if actual == expected {
        DigestCheck::Match
    } else {
        DigestCheck::Mismatch(format_sha1(&actual))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodings_of_the_same_digest_are_accepted() {
        let data = b"hello";
        let b32 = sha1_digest(data);
        assert_eq!(b32, "sha1:VL2MMHO4YXUKFWV63YHTWSBM3GXKSQ2N");
        assert_eq!(check_digest(&b32, data), DigestCheck::Match);
        let hex = "sha1:aaf4c61ddcc5e8a2dabede0f3b482cd9aea9434d";
        assert_eq!(check_digest(hex, data), DigestCheck::Match);
        let b64 = "sha1:qvTGHdzF6KLavt4PO0gs2a6pQ00=";
        assert_eq!(check_digest(b64, data), DigestCheck::Match);
        assert!(same_sha1(&b32, hex));
        assert!(matches!(
            check_digest(&b32, b"other"),
            DigestCheck::Mismatch(_)
        ));
        assert_eq!(check_digest("sha256:abc", data), DigestCheck::Unsupported);
    }
}
