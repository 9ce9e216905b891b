//! Exact-duplicate digests.

use std::fmt;

use sha1::{Digest, Sha1};

/// SHA-1 of a payload, written as WARC does: `sha1:` + RFC 4648 base32 (32 characters).
#[derive(
    Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct PayloadDigest(pub [u8; 20]);

impl PayloadDigest {
    pub fn of(payload: &[u8]) -> Self {
        PayloadDigest(Sha1::digest(payload).into())
    }

    /// Parses `sha1:BASE32` (as found in WARC headers; base16 hex is accepted too).
    pub fn parse(text: &str) -> Option<Self> {
        let (algorithm, value) = text.trim().split_once(':')?;
        if !algorithm.eq_ignore_ascii_case("sha1") {
            return None;
        }
        let bytes = if value.len() == 40 {
            data_encoding::HEXLOWER_PERMISSIVE
                .decode(value.as_bytes())
                .ok()?
        } else {
            data_encoding::BASE32
                .decode(value.to_ascii_uppercase().as_bytes())
                .ok()?
        };
        Some(PayloadDigest(bytes.try_into().ok()?))
    }
}

impl fmt::Display for PayloadDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sha1:{}", data_encoding::BASE32.encode(&self.0))
    }
}

impl fmt::Debug for PayloadDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// 128-bit XXH3 of a normalized token stream (the sequence of 64-bit token hashes): equal for
/// pages that differ only in markup, whitespace, scripts, case, stop words or word endings.
#[derive(
    Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
pub struct TokenDigest(pub u128);

impl TokenDigest {
    pub fn of(token_hashes: &[u64]) -> Self {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        for t in token_hashes {
            hasher.update(&t.to_le_bytes());
        }
        TokenDigest(hasher.digest128())
    }
}

impl fmt::Display for TokenDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "xxh3-128:{:032x}", self.0)
    }
}

impl fmt::Debug for TokenDigest {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn payload_digest_matches_warc_convention() {
        // Known value: sha1("") = da39a3ee5e6b4b0d3255bfef95601890afd80709.
        let d = PayloadDigest::of(b"");
        assert_eq!(d.to_string(), "sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ");
        assert_eq!(PayloadDigest::parse(&d.to_string()), Some(d));
        assert_eq!(
            PayloadDigest::parse("sha1:da39a3ee5e6b4b0d3255bfef95601890afd80709"),
            Some(d)
        );
        assert_eq!(PayloadDigest::parse("md5:abc"), None);
    }

    #[test]
    fn token_digest_depends_on_order() {
        assert_ne!(TokenDigest::of(&[1, 2]), TokenDigest::of(&[2, 1]));
        assert_eq!(TokenDigest::of(&[1, 2]), TokenDigest::of(&[1, 2]));
    }
}
