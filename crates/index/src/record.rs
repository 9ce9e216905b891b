//! The stored form of a document: a compact binary record. The signature dominates it, so it
//! is stored as b-bit MinHash with 16 bits a value (256 bytes at k = 128 instead of 512): the
//! index compares and bands only those bits (see `MinHashSignature::low_bits`). MOD_m sample
//! values keep their low 32 bits (`ModSample::low_bits`). Only the current record version is
//! read: an index of another format is refused before any record is (see `sled_backend`).

use dedupcrawl_sketch::{
    BLOCK_SKETCH_VALUES, BlockSketch, MinHashSignature, ModSample, PayloadDigest, TokenDigest,
};

use crate::IndexError;

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
    pub small_shingles: Option<Vec<u32>>,
    /// For a near duplicate or contained page kept as a cluster member: the decision it got.
    /// `None` for an original.
    pub link: Option<DocumentLink>,
    /// The page's content block keys (sorted, distinct), originals and members alike: the
    /// per-host block counts of template learning are rebuilt from the originals' when the
    /// index opens, and a later page of the host looks up which of its blocks this one has
    /// (the own-content check).
    pub blocks: Vec<u64>,
    /// Sketches of the page's substantial content blocks, originals and members alike: an
    /// edited paragraph of a later page of the host finds its counterpart here.
    pub block_sketches: Vec<BlockSketch>,
    /// The page's own-content blocks (non-template, no link lists), each as its key and
    /// normalized tokens, sorted by key. A later, larger page of the host that lacks
    /// [`crate::DISTINCT_CONTENT_TOKENS`] tokens of its short ones (this page's heading,
    /// summary, declaration) does not hold this page, while one that lacks only a part's
    /// heading and pager does; an original is posted under them for containment (a part too
    /// short for its shingle sample to find the page that holds it finds it by its blocks).
    pub own_blocks: Vec<OwnBlock>,
    /// Keys of the pairs of the page's own-content blocks ([`crate::adjacent_pairs`]) that
    /// sit side by side, that have one block between them and that have two: a part found
    /// block by block in a larger page is inside it only where its blocks also sit side by
    /// side there.
    pub own_pairs: [Vec<u64>; crate::own_content::PAIR_SKIPS],
    /// The tokens of the page's title ([`crate::DocumentFingerprint::name_tokens`]).
    pub name_tokens: Vec<u32>,
}

/// Block keys (and own blocks) a record keeps at most: the smallest keys, so two pages
/// keep the same ones of the blocks they share. The largest pages of the Rust docs have under
/// 18,000 block-level tags (counted by hand, 2026-11-27); a hostile page of a million distinct one-word paragraphs (10 MB) made a
/// record of 36 MB, past what the document log takes, and stopped `dedup` and the crawl.
/// Past the bound a page's other blocks count as its own (the safe side: distinct).
pub const MAX_RECORD_BLOCKS: usize = 65_536;

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
    /// The most similar earlier document (an original or another member).
    pub to: DocumentId,
    /// The original at the root of the chain.
    pub cluster: DocumentId,
    /// Estimated resemblance (or containment) with `to`.
    pub similarity: f64,
}

/// Version 11: the tokens of the page's title are kept.
/// Version 10: the keys of a page's adjacent own-content blocks are kept.
/// Version 9: a page's own-content blocks are kept whole (version 8 kept the short ones).
/// Version 8: a page's short own-content blocks are kept with their token counts, and the
/// MOD_m sample's length takes 32 bits (a page of 4 million shingles wrapped 16 and left a
/// record no reader could parse: the index did not open again). Version 7:
/// block keys are hashes of normalized tokens, kept for members too.
const RECORD_VERSION: u8 = 11;
/// Bits kept per signature value.
pub const SIGNATURE_BITS: u32 = 16;
/// Bits kept per MOD_m sample value.
pub(crate) const SAMPLE_BITS: u32 = 32;

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
        let small = self.small_shingles.as_deref().unwrap_or(&[]);
        out.extend_from_slice(&(small.len() as u16).to_le_bytes());
        for v in small {
            out.extend_from_slice(&v.to_le_bytes());
        }
        match self.link {
            Some(link) => {
                out.push(if link.contained { 2 } else { 1 });
                out.extend_from_slice(&link.to.to_le_bytes());
                out.extend_from_slice(&link.cluster.to_le_bytes());
                out.extend_from_slice(&link.similarity.to_le_bytes());
            }
            None => out.push(0),
        }
        out.extend_from_slice(&(self.blocks.len() as u32).to_le_bytes());
        for block in &self.blocks {
            out.extend_from_slice(&block.to_le_bytes());
        }
        out.extend_from_slice(&(self.block_sketches.len() as u32).to_le_bytes());
        for sketch in &self.block_sketches {
            for value in sketch.0 {
                out.extend_from_slice(&value.to_le_bytes());
            }
        }
        out.extend_from_slice(&(self.own_blocks.len() as u32).to_le_bytes());
        for block in &self.own_blocks {
            out.extend_from_slice(&block.key.to_le_bytes());
            out.extend_from_slice(&block.tokens.to_le_bytes());
        }
        for pairs in &self.own_pairs {
            out.extend_from_slice(&(pairs.len() as u32).to_le_bytes());
            for pair in pairs {
                out.extend_from_slice(&pair.to_le_bytes());
            }
        }
        let name_tokens = &self.name_tokens[..self.name_tokens.len().min(crate::MAX_NAME_TOKENS)];
        out.push(name_tokens.len() as u8);
        for token in name_tokens {
            out.extend_from_slice(&token.to_le_bytes());
        }
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
        let small_len = reader.u16().ok_or_else(|| corrupt("small set length"))? as usize;
        let small_shingles = if small_len == 0 {
            None
        } else {
            let set = reader
                .items(small_len, 4)
                .ok_or_else(|| corrupt("small set"))?;
            Some(set.map(le_u32).collect())
        };
        let link = match reader.take(1).ok_or_else(|| corrupt("link kind"))?[0] {
            0 => None,
            kind => Some(DocumentLink {
                contained: kind == 2,
                to: reader.u32().ok_or_else(|| corrupt("link target"))?,
                cluster: reader.u32().ok_or_else(|| corrupt("link cluster"))?,
                similarity: reader
                    .u64()
                    .map(f64::from_bits)
                    .ok_or_else(|| corrupt("link similarity"))?,
            }),
        };
        let block_count = reader.u32().ok_or_else(|| corrupt("block count"))? as usize;
        let blocks = reader
            .items(block_count, 8)
            .ok_or_else(|| corrupt("blocks"))?
            .map(le_u64)
            .collect();
        let sketch_count = reader.u32().ok_or_else(|| corrupt("sketch count"))? as usize;
        let sketch_bytes = BLOCK_SKETCH_VALUES * 2;
        let block_sketches = reader
            .items(sketch_count, sketch_bytes)
            .ok_or_else(|| corrupt("block sketches"))?
            .map(|chunk| {
                let mut values = [0u16; BLOCK_SKETCH_VALUES];
                for (value, pair) in values.iter_mut().zip(chunk.chunks_exact(2)) {
                    *value = u16::from_le_bytes([pair[0], pair[1]]);
                }
                BlockSketch(values)
            })
            .collect();
        let short_count = reader.u32().ok_or_else(|| corrupt("short block count"))? as usize;
        let own_blocks = reader
            .items(short_count, 10)
            .ok_or_else(|| corrupt("short blocks"))?
            .map(|b| OwnBlock {
                key: le_u64(&b[..8]),
                tokens: u16::from_le_bytes([b[8], b[9]]),
            })
            .collect();
        let mut own_pairs: [Vec<u64>; crate::own_content::PAIR_SKIPS] = Default::default();
        for pairs in &mut own_pairs {
            let count = reader.u32().ok_or_else(|| corrupt("own pair count"))? as usize;
            *pairs = reader
                .items(count, 8)
                .ok_or_else(|| corrupt("own pairs"))?
                .map(le_u64)
                .collect();
        }
        let name_count = reader.take(1).ok_or_else(|| corrupt("title token count"))?[0];
        let name_tokens = reader
            .items(usize::from(name_count), 4)
            .ok_or_else(|| corrupt("title tokens"))?
            .map(le_u32)
            .collect();
        Ok(StoredDocument {
            id,
            name,
            host,
            payload,
            tokens,
            signature,
            mod_sample,
            small_shingles,
            link,
            blocks,
            block_sketches,
            own_blocks,
            own_pairs,
            name_tokens,
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
            small_shingles: Some(vec![1, 5, 9]),
            link: Some(DocumentLink {
                contained: true,
                to: 3,
                cluster: 1,
                similarity: 0.8125,
            }),
            blocks: vec![3, 1 << 40],
            block_sketches: vec![BlockSketch([1, 2, 3, 4, 5, 6, 7, 8])],
            own_blocks: vec![OwnBlock { key: 7, tokens: 3 }],
            own_pairs: [vec![11, 12], vec![13], vec![]],
            name_tokens: vec![5, 3, 5, 9],
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
