//! The document log: every indexed document's record (`StoredDocument::encode`), appended
//! to one file, with removals appended as tombstones. The index's sled tree records how many
//! bytes of it are committed (in the same batch as the document's other writes); on open the
//! file is cut back to that length, so a process killed between the append and the batch
//! leaves no half-indexed document behind.
//!
//! ```text
//! frame = length: u32 LE (of id + body) | crc32: u32 LE (of id + body) | id: u32 LE | body
//! body  = a StoredDocument record, or nothing (the document `id` was removed)
//! ```
//!
//! Why not sled: a document record (≈ 370 bytes) written once and read only as an LSH
//! candidate is the worst case for a B-tree that rewrites whole pages: sled stored each one
//! in about 3× its size and slowed to 30k inserts/s at 1M documents. Appending costs the
//! record's bytes and a `write` per group commit; a read is one `pread`.
//!
//! ```no_run
//! # use dedupcrawl_index::document_log::DocumentLog;
//! let log = DocumentLog::open("/tmp/documents.log".as_ref(), Some(0)).unwrap();
//! log.for_each_live(0, |document| panic!("a fresh log holds {document:?}")).unwrap();
//! ```

use std::fs::{File, OpenOptions};
use std::io::{BufReader, Read, Seek, SeekFrom};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use crate::IndexError;
use crate::record::{DocumentId, StoredDocument};

const HEADER: usize = 8;
/// Offsets are packed with the frame length: 40 bits of offset (1 TiB), 24 of length.
const LENGTH_BITS: u32 = 24;
const MAX_FRAME: usize = (1 << LENGTH_BITS) - 1;
const NOT_STORED: u64 = u64::MAX;

/// An open document log.
#[derive(Debug)]
pub struct DocumentLog {
    path: PathBuf,
    file: File,
    /// Per id: packed (offset, frame length), or [`NOT_STORED`].
    frames: Vec<u64>,
    /// Bytes in the file.
    written: u64,
    /// Frames appended since the last [`write`](Self::write), starting at `written`.
    buffer: Vec<u8>,
}

fn io_error(path: &Path, action: &str, error: std::io::Error) -> IndexError {
    IndexError::Log {
        path: path.display().to_string(),
        action: action.to_string(),
        source: error,
    }
}

fn frame(id: DocumentId, body: &[u8]) -> Vec<u8> {
    let mut framed = Vec::with_capacity(HEADER + 4 + body.len());
    let length = (4 + body.len()) as u32;
    framed.extend_from_slice(&length.to_le_bytes());
    framed.extend_from_slice(&[0; 4]);
    framed.extend_from_slice(&id.to_le_bytes());
    framed.extend_from_slice(body);
    let crc = crc32fast::hash(&framed[HEADER..]);
    framed[4..8].copy_from_slice(&crc.to_le_bytes());
    framed
}

impl DocumentLog {
    /// Opens (or creates) the log and indexes its frames (every frame's checksum is checked;
    /// no record is kept in memory: [`for_each_live`](Self::for_each_live) reads them).
    /// `committed` is the length the index recorded as committed: the file is cut back to it
    /// (bytes past it belong to a batch that never committed). `None` trusts every whole frame
    /// (a log whose commit point is not recorded anywhere, as a fresh one).
    ///
    /// A file shorter than `committed` (a power loss before the log reached the disk, which
    /// `flush` prevents for flushed documents) keeps its whole frames: the documents past
    /// them are lost, not the index.
    pub fn open(path: &Path, committed: Option<u64>) -> Result<DocumentLog, IndexError> {
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .open(path)
            .map_err(|e| io_error(path, "open", e))?;
        let length = file
            .metadata()
            .map_err(|e| io_error(path, "read the size of", e))?
            .len();
        let limit = committed.map_or(length, |c| c.min(length));
        let mut reader = BufReader::with_capacity(1 << 20, &file);
        let mut frames: Vec<u64> = Vec::new();
        let mut at = 0u64;
        let mut header = [0u8; HEADER];
        let mut body = Vec::new();
        while at + HEADER as u64 <= limit {
            reader
                .read_exact(&mut header)
                .map_err(|e| io_error(path, "read", e))?;
            let frame_length = u32::from_le_bytes([header[0], header[1], header[2], header[3]]);
            let crc = u32::from_le_bytes([header[4], header[5], header[6], header[7]]);
            let end = at + HEADER as u64 + u64::from(frame_length);
            if frame_length < 4 || end > limit {
                break;
            }
            body.resize(frame_length as usize, 0);
            reader
                .read_exact(&mut body)
                .map_err(|e| io_error(path, "read", e))?;
            if crc32fast::hash(&body) != crc {
                if committed.is_some_and(|c| end <= c) {
                    return Err(IndexError::CorruptRecord {
                        key: format!("{} at byte {at}", path.display()),
                        reason: "checksum mismatch inside the committed part of the document \
                                 log; restore the index from a backup or delete it and re-run"
                            .into(),
                    });
                }
                break;
            }
            let id = u32::from_le_bytes([body[0], body[1], body[2], body[3]]);
            let slot = id as usize;
            if frames.len() <= slot {
                frames.resize(slot + 1, NOT_STORED);
            }
            frames[slot] = if frame_length == 4 {
                NOT_STORED
            } else {
                at << LENGTH_BITS | (HEADER as u64 + u64::from(frame_length))
            };
            at = end;
        }
        drop(reader);
        if at < length {
            file.set_len(at)
                .map_err(|e| io_error(path, "cut back", e))?;
        }
        if let Some(committed) = committed
            && at < committed
        {
            tracing::warn!(
                path = %path.display(),
                committed,
                found = at,
                "the document log is shorter than its commit point (the system lost its tail): \
                 the documents past byte {at} are not in the index any more"
            );
        }
        frames.shrink_to_fit();
        Ok(DocumentLog {
            path: path.to_path_buf(),
            file,
            frames,
            written: at,
            buffer: Vec::new(),
        })
    }

    /// Calls `visit` with every live document whose id is at least `from`, in id order (the
    /// order of the log), reading the file once from its first such frame.
    pub fn for_each_live(
        &self,
        from: DocumentId,
        mut visit: impl FnMut(StoredDocument) -> Result<(), IndexError>,
    ) -> Result<(), IndexError> {
        let live = |id: usize| self.frames[id] != NOT_STORED;
        let Some(first) = (from as usize..self.frames.len()).find(|&id| live(id)) else {
            return Ok(());
        };
        let mut reader = BufReader::with_capacity(1 << 20, &self.file);
        let mut position = self.frames[first] >> LENGTH_BITS;
        reader
            .seek(SeekFrom::Start(position))
            .map_err(|e| io_error(&self.path, "read", e))?;
        let mut framed = Vec::new();
        for id in first..self.frames.len() {
            if !live(id) {
                continue;
            }
            let packed = self.frames[id];
            let (at, length) = (packed >> LENGTH_BITS, (packed & MAX_FRAME as u64) as usize);
            if at >= self.written {
                // Buffered frames (appended since the last write) are read from memory.
                visit(
                    self.read(id as DocumentId)?
                        .ok_or_else(|| IndexError::CorruptRecord {
                            key: format!("document {id}"),
                            reason: "a buffered frame is missing".into(),
                        })?,
                )?;
                continue;
            }
            reader
                .seek_relative(at as i64 - position as i64)
                .map_err(|e| io_error(&self.path, "read", e))?;
            framed.resize(length, 0);
            reader
                .read_exact(&mut framed)
                .map_err(|e| io_error(&self.path, "read", e))?;
            position = at + length as u64;
            visit(StoredDocument::decode(
                id as DocumentId,
                &framed[HEADER + 4..],
            )?)?;
        }
        Ok(())
    }

    /// Whether `id` has a record (was appended and not removed).
    pub fn is_stored(&self, id: DocumentId) -> bool {
        self.frames
            .get(id as usize)
            .is_some_and(|&packed| packed != NOT_STORED)
    }

    /// Where the log lives.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Ids handed out so far (the next id of a fresh document is at least this).
    pub fn id_bound(&self) -> DocumentId {
        self.frames.len() as DocumentId
    }

    /// The length of the log once the buffer is written: the commit point to record.
    pub fn end(&self) -> u64 {
        self.written + self.buffer.len() as u64
    }

    /// Appends a document (to the buffer; [`write`](Self::write) hands it to the file).
    pub fn append(&mut self, document: &StoredDocument) -> Result<(), IndexError> {
        self.append_frame(document.id, &document.encode())
    }

    /// Appends the tombstone of `id`.
    pub fn remove(&mut self, id: DocumentId) -> Result<(), IndexError> {
        self.append_frame(id, &[])?;
        // A tombstone still uses its id: it is never handed out again.
        let slot = id as usize;
        if self.frames.len() <= slot {
            self.frames.resize(slot + 1, NOT_STORED);
        }
        self.frames[slot] = NOT_STORED;
        Ok(())
    }

    fn append_frame(&mut self, id: DocumentId, body: &[u8]) -> Result<(), IndexError> {
        let framed = frame(id, body);
        if framed.len() > MAX_FRAME {
            return Err(IndexError::CorruptRecord {
                key: format!("document {id}"),
                reason: format!("a record of {} bytes is too large to index", framed.len()),
            });
        }
        let at = self.end();
        self.buffer.extend_from_slice(&framed);
        if !body.is_empty() {
            let slot = id as usize;
            if self.frames.len() <= slot {
                self.frames.resize(slot + 1, NOT_STORED);
            }
            self.frames[slot] = at << LENGTH_BITS | framed.len() as u64;
        }
        Ok(())
    }

    /// Writes the buffered frames to the file (the page cache: they survive a killed process;
    /// [`sync`](Self::sync) makes them survive a power loss).
    pub fn write(&mut self) -> Result<(), IndexError> {
        if self.buffer.is_empty() {
            return Ok(());
        }
        self.file
            .write_all_at(&self.buffer, self.written)
            .map_err(|e| io_error(&self.path, "append to", e))?;
        self.written += self.buffer.len() as u64;
        self.buffer.clear();
        Ok(())
    }

    /// Writes and fsyncs.
    pub fn sync(&mut self) -> Result<(), IndexError> {
        self.write()?;
        self.file
            .sync_data()
            .map_err(|e| io_error(&self.path, "sync", e))
    }

    /// A stored document (buffered or written), or `None` if `id` is not stored.
    pub fn read(&self, id: DocumentId) -> Result<Option<StoredDocument>, IndexError> {
        let Some(&packed) = self.frames.get(id as usize) else {
            return Ok(None);
        };
        if packed == NOT_STORED {
            return Ok(None);
        }
        let (at, length) = (packed >> LENGTH_BITS, (packed & MAX_FRAME as u64) as usize);
        let mut from_file = Vec::new();
        let framed: &[u8] = if at >= self.written {
            let start = (at - self.written) as usize;
            &self.buffer[start..start + length]
        } else {
            from_file.resize(length, 0);
            self.file
                .read_exact_at(&mut from_file, at)
                .map_err(|e| io_error(&self.path, "read", e))?;
            &from_file
        };
        // The frame was checked when it was read at open or written by this process.
        StoredDocument::decode(id, &framed[HEADER + 4..]).map(Some)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use dedupcrawl_sketch::{MinHashSignature, PayloadDigest};

    fn document(id: DocumentId) -> StoredDocument {
        StoredDocument {
            id,
            name: format!("doc-{id}"),
            host: "example.org".into(),
            payload: PayloadDigest::of(&id.to_le_bytes()),
            tokens: None,
            signature: Some(MinHashSignature((0..128).map(|v| v * id).collect())),
            mod_sample: None,
            sequence: vec![id + 1, id],
            compared_text: Vec::new(),
            link_targets: Vec::new(),
            link: None,
            blocks: vec![u64::from(id)],
            own_blocks: Vec::new(),
            prose_tokens: 0,
            block_spans: Vec::new(),
        }
    }

    fn live(log: &DocumentLog) -> Vec<StoredDocument> {
        let mut documents = Vec::new();
        log.for_each_live(0, |document| {
            documents.push(document);
            Ok(())
        })
        .unwrap();
        documents
    }

    #[test]
    fn reopen_reads_back_and_cuts_to_the_commit_point() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("documents.log");
        let committed;
        {
            let mut log = DocumentLog::open(&path, Some(0)).unwrap();
            for id in 0..3 {
                log.append(&document(id)).unwrap();
            }
            // Buffered frames are readable before they are written.
            assert_eq!(log.read(1).unwrap(), Some(document(1)));
            log.remove(1).unwrap();
            log.write().unwrap();
            committed = log.end();
            // Written but never committed: cut at the next open.
            log.append(&document(3)).unwrap();
            log.write().unwrap();
            assert_eq!(log.read(3).unwrap(), Some(document(3)));
        }
        let log = DocumentLog::open(&path, Some(committed)).unwrap();
        assert_eq!(live(&log), vec![document(0), document(2)]);
        assert_eq!(
            {
                let mut from_two = Vec::new();
                log.for_each_live(1, |d| {
                    from_two.push(d);
                    Ok(())
                })
                .unwrap();
                from_two
            },
            vec![document(2)]
        );
        assert_eq!(log.read(1).unwrap(), None);
        assert_eq!(log.read(2).unwrap(), Some(document(2)));
        assert_eq!(log.read(3).unwrap(), None);
        assert_eq!(std::fs::metadata(&path).unwrap().len(), committed);
    }

    #[test]
    fn a_log_shorter_than_its_commit_point_keeps_its_whole_frames() {
        // A power loss after sled persisted the commit point but before the log's pages
        // reached the disk (`flush` syncs the log first, so only unflushed documents).
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("documents.log");
        let committed;
        let first_frame;
        {
            let mut log = DocumentLog::open(&path, Some(0)).unwrap();
            log.append(&document(0)).unwrap();
            log.write().unwrap();
            first_frame = log.end();
            log.append(&document(1)).unwrap();
            log.append(&document(2)).unwrap();
            log.write().unwrap();
            committed = log.end();
        }
        let file = OpenOptions::new().write(true).open(&path).unwrap();
        file.set_len(first_frame + 10).unwrap();
        drop(file);
        let mut log = DocumentLog::open(&path, Some(committed)).unwrap();
        assert_eq!(live(&log), vec![document(0)]);
        assert_eq!(log.id_bound(), 1);
        // The torn frame is cut, and new frames follow the whole ones.
        assert_eq!(std::fs::metadata(&path).unwrap().len(), first_frame);
        log.append(&document(1)).unwrap();
        log.sync().unwrap();
        let end = log.end();
        drop(log);
        let log = DocumentLog::open(&path, Some(end)).unwrap();
        assert_eq!(live(&log), vec![document(0), document(1)]);
    }

    #[test]
    fn a_torn_tail_is_dropped_and_damage_inside_the_commit_point_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("documents.log");
        {
            let mut log = DocumentLog::open(&path, Some(0)).unwrap();
            log.append(&document(0)).unwrap();
            log.append(&document(1)).unwrap();
            log.sync().unwrap();
        }
        let full = std::fs::read(&path).unwrap();
        // A torn last frame (no commit point known): the whole frames stay.
        std::fs::write(&path, &full[..full.len() - 7]).unwrap();
        let log = DocumentLog::open(&path, None).unwrap();
        assert_eq!(live(&log), vec![document(0)]);
        // A flipped byte inside the committed part is reported, with what to do.
        let mut damaged = full.clone();
        damaged[20] ^= 0xFF;
        std::fs::write(&path, &damaged).unwrap();
        let error = DocumentLog::open(&path, Some(full.len() as u64)).unwrap_err();
        assert!(error.to_string().contains("checksum"), "{error}");
    }
}
