//! The text a page was compared on, kept so a decision can be checked: the blocks whose
//! normalized tokens were shingled, in page order, each with the language it was normalized
//! in. Tokenized again with the same [`Normalizer`], it gives the same tokens, so the same
//! shingles (`dedupcrawl why` prints it; `compare --exact` computes the figures from it).
//!
//! ```
//! use dedupcrawl_textprep::{ComparedText, Language, Normalizer};
//! let text = ComparedText::from_blocks([(Language::English, "Connected connections")]);
//! let back = ComparedText::decode(&text.encode()).unwrap();
//! assert_eq!(back, text);
//! let mut tokens = Vec::new();
//! back.token_hashes(&Normalizer::default(), &mut tokens);
//! assert_eq!(tokens.len(), 2);
//! ```

use std::io::{Read, Write};

use crate::{Language, Normalizer};

/// Compressed bytes decoded at most (a record keeps at most a few MB of text).
const MAX_DECODED_BYTES: u64 = 64 << 20;

/// The compared blocks of one page.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ComparedText {
    blocks: Vec<(Language, String)>,
}

/// A stored compared text that does not decode.
#[derive(Debug, thiserror::Error)]
#[error("the stored compared text is damaged: {0}")]
pub struct ComparedTextError(String);

impl ComparedText {
    /// From blocks in page order.
    pub fn from_blocks<'a>(blocks: impl IntoIterator<Item = (Language, &'a str)>) -> Self {
        ComparedText {
            blocks: blocks
                .into_iter()
                .map(|(language, text)| (language, text.replace(['\n', '\r'], " ")))
                .collect(),
        }
    }

    /// The blocks, in page order.
    pub fn blocks(&self) -> impl Iterator<Item = (Language, &str)> {
        self.blocks.iter().map(|(l, t)| (*l, t.as_str()))
    }

    /// The plain text, one block a line.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for (_, text) in &self.blocks {
            out.push_str(text);
            out.push('\n');
        }
        out
    }

    /// Appends the normalized token hashes of the text to `out`, as the page's were.
    pub fn token_hashes(&self, normalizer: &Normalizer, out: &mut Vec<u64>) {
        for (language, text) in &self.blocks {
            normalizer.token_hashes(text, *language, out);
        }
    }

    /// Compressed, one block a line after its language code (deflate at the fastest level:
    /// the text is kept for explanations, written once per page).
    pub fn encode(&self) -> Vec<u8> {
        Self::encode_blocks(self.blocks())
    }

    /// [`encode`](Self::encode) of blocks in page order, without making a `ComparedText` of
    /// them first.
    pub fn encode_blocks<'a>(blocks: impl IntoIterator<Item = (Language, &'a str)>) -> Vec<u8> {
        let mut plain = Vec::new();
        for (language, text) in blocks {
            plain.extend_from_slice(language.code().as_bytes());
            plain.push(b'\t');
            let start = plain.len();
            plain.extend_from_slice(text.as_bytes());
            for byte in &mut plain[start..] {
                if matches!(byte, b'\n' | b'\r') {
                    *byte = b' ';
                }
            }
            plain.push(b'\n');
        }
        let mut encoder =
            flate2::write::DeflateEncoder::new(Vec::new(), flate2::Compression::fast());
        // Writing into a Vec cannot fail.
        let _ = encoder.write_all(&plain);
        encoder.finish().unwrap_or_default()
    }

    /// The text [`encode`](Self::encode) wrote.
    pub fn decode(bytes: &[u8]) -> Result<Self, ComparedTextError> {
        let mut plain = String::new();
        flate2::read::DeflateDecoder::new(bytes)
            .take(MAX_DECODED_BYTES)
            .read_to_string(&mut plain)
            .map_err(|e| ComparedTextError(e.to_string()))?;
        let blocks = plain
            .lines()
            .map(|line| {
                let (code, text) = line
                    .split_once('\t')
                    .ok_or_else(|| ComparedTextError(format!("no language in {line:.40}")))?;
                let language = Language::from_code(code)
                    .ok_or_else(|| ComparedTextError(format!("unknown language {code:?}")))?;
                Ok((language, text.to_string()))
            })
            .collect::<Result<_, _>>()?;
        Ok(ComparedText { blocks })
    }
}
