//! The stored form of a document: a compact binary record. The signature dominates it, so it
//! is stored as b-bit MinHash with 16 bits a value (256 bytes at k = 128 instead of 512): the
//! index compares and bands only those bits (see `MinHashSignature::low_bits`). MOD_m sample
//! values keep their low 32 bits (`ModSample::low_bits`). Only the current record version is
//! read: an index of another format is refused before any record is (see `sled_backend`).

use dedupcrawl_sketch::{MinHashSignature, ModSample, PayloadDigest, TokenDigest};

use crate::{IndexError, Mechanism};

/// Dense 32-bit document id, assigned in insertion order.
pub type DocumentId = u32;

/// A document as the index stores it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredDocument {
    pub id: DocumentId,
    pub name: String,
    pub host: String,
    pub payload: PayloadDigest,
    pub tokens: Option<TokenDigest>,
    pub signature: Option<MinHashSignature>,
    pub mod_sample: Option<ModSample>,
    /// [`crate::DocumentFingerprint::sequence`]: its verification set is
    /// [`shingle_set`](Self::shingle_set).
    pub sequence: Vec<u32>,
    /// [`crate::DocumentFingerprint::block_spans`].
    pub block_spans: Vec<crate::BlockSpan>,
    /// The compared text as the pipeline encoded it ([`crate::DocumentFingerprint::compared_text`]).
    pub compared_text: Vec<u8>,
    /// The page's content link targets ([`crate::DocumentFingerprint::link_targets`]).
    pub link_targets: Vec<u32>,
    /// For a near duplicate or contained page kept as a cluster member: the decision it got.
    /// `None` for an original.
    pub link: Option<DocumentLink>,
    /// The page's content block keys (sorted, distinct), originals and members alike: the
    /// per-host block counts of template learning are rebuilt from the originals' when the
    /// index opens.
    pub blocks: Vec<u64>,
    /// The page's own-content blocks (non-template, no link lists), each as its key and
    /// normalized tokens, sorted by key: an original is posted for containment under them (a
    /// part too short for its shingle sample to find the page that holds it finds it by its
    /// blocks).
    pub own_blocks: Vec<OwnBlock>,
    /// [`crate::DocumentFingerprint::prose_tokens`]: a record listed in a page's `contains`
    /// needs [`crate::MIN_PART_TOKENS`] of them, as a page `contained` in a record does.
    pub prose_tokens: u32,
}

/// Block keys (and own blocks) a record keeps at most: the smallest keys, so two pages
/// keep the same ones of the blocks they share. A hostile page of a million distinct one-word
/// paragraphs (10 MB) would otherwise make a record past what the document log takes.
pub const MAX_RECORD_BLOCKS: usize = 65_536;

/// Bytes of compared text a record keeps at most (the pipeline encodes it; a longer text is
/// cut, and `why` says so).
pub const MAX_COMPARED_TEXT_BYTES: usize = 4 << 20;

/// An own-content block of a stored page (see [`StoredDocument::own_blocks`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OwnBlock {
    pub key: u64,
    pub tokens: u16,
}

/// How a cluster member was linked when it was checked (and is answered again when the same
/// document comes back, as on a resumed crawl or a second `dedup` run).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct DocumentLink {
    /// `true` for a page contained in `to`, `false` for a near duplicate of it.
    pub contained: bool,
    /// The original it duplicates.
    pub to: DocumentId,
    /// Verified resemblance (or containment) with `to`.
    pub similarity: f64,
    /// The mechanism that decided.
    pub mechanism: Mechanism,
}

/// Version 12: the compared text's shingles (in text order, with the compared blocks' spans),
/// the compared text and the content link targets are kept; block sketches, adjacent block
/// pairs and title tokens are not.
const RECORD_VERSION: u8 = 13;
/// Bits kept per signature value.
pub const SIGNATURE_BITS: u32 = 16;
/// Bits kept per MOD_m sample value.
pub(crate) const SAMPLE_BITS: u32 = 32;

/// Mechanisms as a record stores them (a member's link).
fn mechanism_code(mechanism: Mechanism) -> u8 {
    Mechanism::ALL
        .iter()
        .position(|&m| m == mechanism)
        .unwrap_or(0) as u8
}

/// A sorted set of 32-bit values as gaps in LEB128 (about 3 bytes a value for a page's
/// shingles, instead of 4).
fn put_sorted_set(out: &mut Vec<u8>, values: &[u32]) {
    out.extend_from_slice(&(values.len() as u32).to_le_bytes());
    let mut previous = 0u32;
    for &value in values {
        let mut gap = value.wrapping_sub(previous);
        previous = value;
        loop {
            let byte = (gap & 0x7f) as u8;
            gap >>= 7;
            if gap == 0 {
                out.push(byte);
                break;
            }
            out.push(byte | 0x80);
        }
    }
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    let bytes = s.as_bytes();
    // Cut at a character boundary, so the stored string still reads back as UTF-8.
    let mut len = bytes.len().min(u16::MAX as usize);
    while !s.is_char_boundary(len) {
        len -= 1;
    }
    out.extend_from_slice(&(len as u16).to_le_bytes());
    out.extend_from_slice(&bytes[..len]);
}

impl StoredDocument {
    /// The compared text's verification set ([`crate::compared_shingle_set`]): `sequence`
    /// sorted, each shingle once. Made when a decision needs it, not when a record is read.
    pub fn shingle_set(&self) -> Vec<u32> {
        let mut set = self.sequence.clone();
        set.sort_unstable();
        set.dedup();
        set
    }

    pub(crate) fn encode(&self) -> Vec<u8> {
        let signature_len = self.signature.as_ref().map_or(0, |s| s.len());
        let mut out = Vec::with_capacity(64 + self.name.len() + signature_len * 2);
        out.push(RECORD_VERSION);
        put_str(&mut out, &self.name);
        put_str(&mut out, &self.host);
        out.extend_from_slice(&self.payload.0);
        match self.tokens {
            Some(d) => {
                out.push(1);
                out.extend_from_slice(&d.0.to_le_bytes());
            }
            None => out.push(0),
        }
        out.extend_from_slice(&(signature_len as u16).to_le_bytes());
        if let Some(signature) = &self.signature {
            // The index only ever holds 16-bit values (cut on the way in).
            for value in &signature.0 {
                out.extend_from_slice(&(*value as u16).to_le_bytes());
            }
        }
        match &self.mod_sample {
            Some(sample) => {
                out.extend_from_slice(&sample.modulus.to_le_bytes());
                // u32: a long page's sample grows with it (one shingle in 64), past 65,535
                // values from about 4 million shingles on.
                out.extend_from_slice(&(sample.values.len() as u32).to_le_bytes());
                for v in &sample.values {
                    // The index only ever holds 32-bit values (cut on the way in).
                    out.extend_from_slice(&(*v as u32).to_le_bytes());
                }
            }
            None => out.extend_from_slice(&0u64.to_le_bytes()),
        }
        out.extend_from_slice(&(self.sequence.len() as u32).to_le_bytes());
        for shingle in &self.sequence {
            out.extend_from_slice(&shingle.to_le_bytes());
        }
        out.extend_from_slice(&(self.block_spans.len() as u32).to_le_bytes());
        for span in &self.block_spans {
            out.extend_from_slice(&span.key.to_le_bytes());
            out.extend_from_slice(&span.shingles.to_le_bytes());
        }
        put_sorted_set(&mut out, &self.link_targets);
        let text = &self.compared_text[..self.compared_text.len().min(MAX_COMPARED_TEXT_BYTES)];
        out.extend_from_slice(&(text.len() as u32).to_le_bytes());
        out.extend_from_slice(text);
        match self.link {
            Some(link) => {
                out.push(if link.contained { 2 } else { 1 });
                out.extend_from_slice(&link.to.to_le_bytes());
                out.extend_from_slice(&link.similarity.to_le_bytes());
                out.push(mechanism_code(link.mechanism));
            }
            None => out.push(0),
        }
        out.extend_from_slice(&(self.blocks.len() as u32).to_le_bytes());
        for block in &self.blocks {
            out.extend_from_slice(&block.to_le_bytes());
        }
        out.extend_from_slice(&(self.own_blocks.len() as u32).to_le_bytes());
        for block in &self.own_blocks {
            out.extend_from_slice(&block.key.to_le_bytes());
            out.extend_from_slice(&block.tokens.to_le_bytes());
        }
        out.extend_from_slice(&self.prose_tokens.to_le_bytes());
        out
    }

    pub(crate) fn decode(id: DocumentId, bytes: &[u8]) -> Result<Self, IndexError> {
        let corrupt = |reason: &str| IndexError::CorruptRecord {
            key: format!("document {id}"),
            reason: reason.to_string(),
        };
        let mut reader = Reader { bytes, at: 0 };
        let version = reader.take(1).ok_or_else(|| corrupt("empty"))?[0];
        if version != RECORD_VERSION {
            return Err(corrupt(&format!("record version {version}")));
        }
        let name = reader.string().ok_or_else(|| corrupt("name"))?;
        let host = reader.string().ok_or_else(|| corrupt("host"))?;
        let payload = PayloadDigest(
            reader
                .take(20)
                .and_then(|b| b.try_into().ok())
                .ok_or_else(|| corrupt("payload digest"))?,
        );
        let tokens = match reader.take(1).ok_or_else(|| corrupt("token flag"))?[0] {
            0 => None,
            _ => Some(TokenDigest(u128::from_le_bytes(
                reader
                    .take(16)
                    .and_then(|b| b.try_into().ok())
                    .ok_or_else(|| corrupt("token digest"))?,
            ))),
        };
        let signature_len = reader.u16().ok_or_else(|| corrupt("signature length"))? as usize;
        let signature = if signature_len == 0 {
            None
        } else {
            let bytes = reader
                .take(signature_len * 2)
                .ok_or_else(|| corrupt("signature"))?;
            Some(MinHashSignature(
                bytes
                    .chunks_exact(2)
                    .map(|pair| u32::from(u16::from_le_bytes([pair[0], pair[1]])))
                    .collect(),
            ))
        };
        let modulus = reader.u64().ok_or_else(|| corrupt("modulus"))?;
        let mod_sample = if modulus == 0 {
            None
        } else {
            let count = reader.u32().ok_or_else(|| corrupt("sample length"))? as usize;
            let values = reader
                .items(count, 4)
                .ok_or_else(|| corrupt("sample"))?
                .map(|b| u64::from(le_u32(b)))
                .collect();
            Some(ModSample { modulus, values })
        };
        let sequence_len = reader.u32().ok_or_else(|| corrupt("shingle count"))? as usize;
        let sequence: Vec<u32> = reader
            .items(sequence_len, 4)
            .ok_or_else(|| corrupt("shingles"))?
            .map(le_u32)
            .collect();
        let span_count = reader.u32().ok_or_else(|| corrupt("block span count"))? as usize;
        let block_spans = reader
            .items(span_count, 12)
            .ok_or_else(|| corrupt("block spans"))?
            .map(|b| crate::BlockSpan {
                key: le_u64(&b[..8]),
                shingles: le_u32(&b[8..]),
            })
            .collect();
        let link_targets = reader.sorted_set().ok_or_else(|| corrupt("link targets"))?;
        let text_len = reader
            .u32()
            .ok_or_else(|| corrupt("compared text length"))? as usize;
        let compared_text = reader
            .take(text_len)
            .ok_or_else(|| corrupt("compared text"))?
            .to_vec();
        let link = match reader.take(1).ok_or_else(|| corrupt("link kind"))?[0] {
            0 => None,
            kind => Some(DocumentLink {
                contained: kind == 2,
                to: reader.u32().ok_or_else(|| corrupt("link target"))?,
                similarity: reader
                    .u64()
                    .map(f64::from_bits)
                    .ok_or_else(|| corrupt("link similarity"))?,
                mechanism: reader
                    .take(1)
                    .and_then(|code| Mechanism::ALL.get(usize::from(code[0])).copied())
                    .ok_or_else(|| corrupt("link mechanism"))?,
            }),
        };
        let block_count = reader.u32().ok_or_else(|| corrupt("block count"))? as usize;
        let blocks = reader
            .items(block_count, 8)
            .ok_or_else(|| corrupt("blocks"))?
            .map(le_u64)
            .collect();
        let own_count = reader.u32().ok_or_else(|| corrupt("own block count"))? as usize;
        let own_blocks = reader
            .items(own_count, 10)
            .ok_or_else(|| corrupt("own blocks"))?
            .map(|b| OwnBlock {
                key: le_u64(&b[..8]),
                tokens: u16::from_le_bytes([b[8], b[9]]),
            })
            .collect();
        let prose_tokens = reader.u32().ok_or_else(|| corrupt("prose tokens"))?;
        Ok(StoredDocument {
            id,
            name,
            host,
            payload,
            tokens,
            signature,
            mod_sample,
            sequence,
            block_spans,
            compared_text,
            link_targets,
            link,
            blocks,
            own_blocks,
            prose_tokens,
        })
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let slice = self.bytes.get(self.at..self.at.checked_add(n)?)?;
        self.at += n;
        Some(slice)
    }
    /// `count` items of `width` bytes each (`None` past the end, or on an overflowing count).
    fn items(&mut self, count: usize, width: usize) -> Option<std::slice::ChunksExact<'a, u8>> {
        Some(self.take(count.checked_mul(width)?)?.chunks_exact(width))
    }
    fn u16(&mut self) -> Option<u16> {
        Some(u16::from_le_bytes(self.take(2)?.try_into().ok()?))
    }
    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }
    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
    /// A set written by [`put_sorted_set`].
    fn sorted_set(&mut self) -> Option<Vec<u32>> {
        let count = self.u32()? as usize;
        // Every value takes at least a byte: a count past the rest is corrupt.
        if count > self.bytes.len() - self.at {
            return None;
        }
        let mut values = Vec::with_capacity(count);
        let mut previous = 0u32;
        for _ in 0..count {
            let mut gap = 0u32;
            for shift in (0..35).step_by(7) {
                let byte = self.take(1)?[0];
                gap |= u32::from(byte & 0x7f).checked_shl(shift)?;
                if byte & 0x80 == 0 {
                    break;
                }
            }
            previous = previous.wrapping_add(gap);
            values.push(previous);
        }
        Some(values)
    }
    fn string(&mut self) -> Option<String> {
        let len = self.u16()? as usize;
        String::from_utf8(self.take(len)?.to_vec()).ok()
    }
}

/// The little-endian `u32` of a 4-byte item of [`Reader::items`].
fn le_u32(bytes: &[u8]) -> u32 {
    u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]])
}

/// The little-endian `u64` of the first 8 bytes of an item of [`Reader::items`].
fn le_u64(bytes: &[u8]) -> u64 {
    let mut value = [0u8; 8];
    value.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn record_round_trip_and_truncation_is_an_error() {
        let doc = StoredDocument {
            id: 9,
            name: "https://example.org/ä".into(),
            host: "example.org".into(),
            payload: PayloadDigest::of(b"x"),
            tokens: Some(TokenDigest(42)),
            signature: Some(MinHashSignature((0..128).map(|v| v * 500).collect())),
            mod_sample: Some(ModSample {
                modulus: 4,
                values: vec![4, 8, 16],
            }),
            sequence: vec![9, 1, 5, 200_000, u32::MAX, 5],
            block_spans: vec![crate::BlockSpan {
                key: 3,
                shingles: 6,
            }],
            compared_text: b"compared".to_vec(),
            link_targets: vec![3, 4],
            link: Some(DocumentLink {
                contained: true,
                to: 3,
                similarity: 0.8125,
                mechanism: Mechanism::Containment,
            }),
            blocks: vec![3, 1 << 40],
            own_blocks: vec![OwnBlock { key: 7, tokens: 3 }],
            prose_tokens: 40,
        };
        let bytes = doc.encode();
        assert_eq!(StoredDocument::decode(9, &bytes).unwrap(), doc);
        // A long page's sample, past 16 bits of length.
        let long = StoredDocument {
            mod_sample: Some(ModSample {
                modulus: 64,
                values: (0..100_000).map(|v| v * 64).collect(),
            }),
            ..doc.clone()
        };
        assert_eq!(StoredDocument::decode(9, &long.encode()).unwrap(), long);
        // A name past 16 bits of length is cut at a character boundary.
        let named = StoredDocument {
            name: format!("a{}", "ä".repeat(40_000)),
            ..doc.clone()
        };
        let read = StoredDocument::decode(9, &named.encode()).unwrap();
        assert!(named.name.starts_with(&read.name) && read.name.len() >= 65_534);
        assert!(StoredDocument::decode(9, &bytes[..bytes.len() - 3]).is_err());
        let mut older = bytes.clone();
        older[0] = 5;
        assert!(StoredDocument::decode(9, &older).is_err());
    }
}
