//! One sorted run on disk: reading it back (filter and fences in RAM), writing it, and merging runs entry by entry.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use dedupcrawl_sketch::BlockedBloomFilter;

use super::entry::*;
use crate::IndexError;
use crate::record::DocumentId;

/// A listing's value: entries (u64 BE) and CRC-32 (u32 BE).
pub(super) fn run_meta_value(run: &Run) -> Vec<u8> {
    let mut value = run.entries.to_be_bytes().to_vec();
    value.extend_from_slice(&run.crc.to_be_bytes());
    value
}

/// One immutable sorted run, as held in RAM.
pub(super) struct Run {
    pub(super) generation: u64,
    pub(super) entries: u64,
    /// CRC-32 of the file, recorded in the listing and checked when the run is loaded.
    pub(super) crc: u32,
    pub(super) path: PathBuf,
    pub(super) file: File,
    pub(super) filter: BlockedBloomFilter,
    /// The high 32 bits of each block's first key: half the RAM of whole keys, and a search
    /// lands on the same block or the one before (the scan goes on from there).
    pub(super) fences: Vec<u32>,
}

impl Run {
    /// Appends the ids stored under `key` (ascending) to `out`.
    pub(super) fn members(&self, key: u64, out: &mut Vec<DocumentId>) -> Result<(), IndexError> {
        if !self.filter.may_contain(key) {
            return Ok(());
        }
        // The key's entries may begin at the end of the block before the first block that
        // starts at or past it.
        let mut entry = (fence_search(&self.fences, fence(key)).max(1) - 1) * ENTRIES_PER_BLOCK;
        let mut buffer = [0u8; BLOCK_BYTES];
        while (entry as u64) < self.entries {
            let count = (self.entries - entry as u64).min(ENTRIES_PER_BLOCK as u64) as usize;
            let bytes = &mut buffer[..count * ENTRY_BYTES];
            self.file
                .read_exact_at(bytes, (entry * ENTRY_BYTES) as u64)
                .map_err(|error| io_error(&self.path, "read", error))?;
            for raw in bytes.chunks_exact(ENTRY_BYTES) {
                let found = entry_key(raw);
                if found > key {
                    return Ok(());
                }
                if found == key {
                    out.push(entry_id(raw));
                }
            }
            entry += count;
        }
        Ok(())
    }

    pub(super) fn memory_bytes(&self) -> usize {
        self.filter.memory_bytes() + self.fences.len() * 4
    }
}

/// A block's fence: the high bits of its first key.
fn fence(key: u64) -> u32 {
    (key >> 32) as u32
}

/// How many fences are below `target` (`partition_point(|f| f < target)`). Keys are uniform
/// (mixed), so the count is first guessed from the target's place in the key range and then
/// searched outward from the guess: a few cache misses instead of a binary search's ~20 over
/// fences that do not fit in the CPU caches.
fn fence_search(fences: &[u32], target: u32) -> usize {
    let guess = ((u64::from(target) * fences.len() as u64) >> 32) as usize;
    let (mut low, mut high) = (guess, guess);
    let mut step = 1;
    // Widen [low, high) until it brackets the answer: fences[low - 1] < target <= fences[high].
    while low > 0 && fences[low - 1] >= target {
        high = low;
        low = low.saturating_sub(step);
        step *= 2;
    }
    step = 1;
    while high < fences.len() && fences[high] < target {
        low = high + 1;
        high = (high + step).min(fences.len());
        step *= 2;
    }
    low + fences[low..high].partition_point(|&first| first < target)
}

/// Writes a run from entries pushed in `(key, id)` order, keeping at most `cap` per key, and
/// builds its filter and fences on the way.
pub(super) struct RunWriter {
    pub(super) writer: File,
    /// Entries not yet written (CRC-32 and `write` over large chunks).
    pub(super) buffer: Vec<u8>,
    pub(super) written: u64,
    pub(super) crc: crc32fast::Hasher,
    pub(super) run: Run,
    pub(super) cap: usize,
    pub(super) last: Option<(u64, DocumentId)>,
    pub(super) same_key: usize,
}

impl RunWriter {
    pub(super) fn create(
        dir: &Path,
        table: Table,
        generation: u64,
        expected: u64,
    ) -> Result<Self, IndexError> {
        let path = dir.join(run_name(table, generation));
        let file = OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .map_err(|error| io_error(&path, "create", error))?;
        let reader = file
            .try_clone()
            .map_err(|error| io_error(&path, "open", error))?;
        Ok(RunWriter {
            writer: file,
            buffer: Vec::with_capacity(FILE_BUFFER),
            written: 0,
            crc: crc32fast::Hasher::new(),
            run: Run {
                generation,
                entries: 0,
                crc: 0,
                path,
                file: reader,
                filter: BlockedBloomFilter::for_keys(expected, FILTER_BITS_PER_KEY),
                fences: Vec::new(),
            },
            cap: table.cap(),
            last: None,
            same_key: 0,
        })
    }

    pub(super) fn push(&mut self, key: u64, id: DocumentId) -> Result<(), IndexError> {
        match self.last {
            Some(last) if (key, id) == last => return Ok(()),
            Some(last) if (key, id) < last => {
                return Err(IndexError::CorruptRecord {
                    key: self.run.path.display().to_string(),
                    reason: "a lookup run being merged is not sorted; in a crawl's state/, \
                             `dedupcrawl repair OUT` rebuilds the index from the WARC files"
                        .into(),
                });
            }
            Some((last_key, _)) if last_key == key => {
                if self.same_key >= self.cap {
                    return Ok(());
                }
                self.same_key += 1;
            }
            _ => {
                self.same_key = 1;
                self.run.filter.insert(key);
            }
        }
        self.last = Some((key, id));
        if self.run.entries.is_multiple_of(ENTRIES_PER_BLOCK as u64) {
            self.run.fences.push(fence(key));
        }
        self.buffer.extend_from_slice(&key.to_le_bytes());
        self.buffer.extend_from_slice(&id.to_le_bytes());
        self.run.entries += 1;
        if self.buffer.len() + ENTRY_BYTES > FILE_BUFFER {
            self.write_buffer()?;
        }
        Ok(())
    }

    pub(super) fn write_buffer(&mut self) -> Result<(), IndexError> {
        self.crc.update(&self.buffer);
        self.writer
            .write_all_at(&self.buffer, self.written)
            .map_err(|error| io_error(&self.run.path, "write", error))?;
        self.written += self.buffer.len() as u64;
        self.buffer.clear();
        Ok(())
    }

    /// Writes the rest to the file (not fsynced: a run damaged by an OS crash is rebuilt).
    pub(super) fn finish(mut self) -> Result<Run, IndexError> {
        self.write_buffer()?;
        let mut run = self.run;
        run.crc = self.crc.finalize();
        Ok(run)
    }
}

/// One sorted input of a merge: the entries of a run file, read in large chunks, or the
/// recent entries.
pub(super) struct MergeInput {
    /// The current chunk, decoded.
    pub(super) chunk: Vec<(u64, DocumentId)>,
    pub(super) at: usize,
    /// The rest of the run file (`None` for the recent entries, all in `chunk`).
    pub(super) file: Option<(File, PathBuf)>,
    pub(super) offset: u64,
    pub(super) remaining: u64,
}

impl MergeInput {
    pub(super) fn of_run(path: &Path, entries: u64) -> Result<Self, IndexError> {
        let file = File::open(path).map_err(|error| io_error(path, "open", error))?;
        let mut input = MergeInput {
            chunk: Vec::new(),
            at: 0,
            file: Some((file, path.to_path_buf())),
            offset: 0,
            remaining: entries,
        };
        input.refill()?;
        Ok(input)
    }

    pub(super) fn of_entries(entries: Vec<(u64, DocumentId)>) -> Self {
        MergeInput {
            chunk: entries,
            at: 0,
            file: None,
            offset: 0,
            remaining: 0,
        }
    }

    #[inline]
    pub(super) fn head(&self) -> Option<(u64, DocumentId)> {
        self.chunk.get(self.at).copied()
    }

    #[inline]
    pub(super) fn advance(&mut self) -> Result<(), IndexError> {
        self.at += 1;
        if self.at == self.chunk.len() && self.remaining > 0 {
            self.refill()?;
        }
        Ok(())
    }

    pub(super) fn refill(&mut self) -> Result<(), IndexError> {
        let Some((file, path)) = &self.file else {
            return Ok(());
        };
        let count = self.remaining.min((FILE_BUFFER / ENTRY_BYTES) as u64) as usize;
        let mut bytes = vec![0u8; count * ENTRY_BYTES];
        file.read_exact_at(&mut bytes, self.offset)
            .map_err(|error| io_error(path, "read", error))?;
        self.chunk.clear();
        self.chunk.extend(
            bytes
                .chunks_exact(ENTRY_BYTES)
                .map(|raw| (entry_key(raw), entry_id(raw))),
        );
        self.at = 0;
        self.offset += bytes.len() as u64;
        self.remaining -= count as u64;
        Ok(())
    }
}

/// Opens a listed run and rebuilds its filter and fences by reading it once; `Err` says why
/// it cannot be used.
pub(super) fn load_run(
    dir: &Path,
    table: Table,
    generation: u64,
    entries: u64,
    crc: u32,
) -> Result<Run, String> {
    let name = run_name(table, generation);
    let path = dir.join(&name);
    let file = File::open(&path).map_err(|error| format!("{name} cannot be opened: {error}"))?;
    let size = file
        .metadata()
        .map_err(|error| format!("{name}: {error}"))?
        .len();
    if size != entries * ENTRY_BYTES as u64 {
        return Err(format!(
            "{name} has {size} bytes, its listing says {entries} entries of {ENTRY_BYTES}"
        ));
    }
    let mut run = Run {
        generation,
        entries,
        crc,
        path: path.clone(),
        file,
        filter: BlockedBloomFilter::for_keys(entries, FILTER_BITS_PER_KEY),
        fences: Vec::with_capacity((entries as usize).div_ceil(ENTRIES_PER_BLOCK)),
    };
    let mut reader = run
        .file
        .try_clone()
        .map_err(|error| format!("{name}: {error}"))?;
    let mut hasher = crc32fast::Hasher::new();
    let mut chunk = vec![0u8; FILE_BUFFER / ENTRY_BYTES * ENTRY_BYTES];
    let mut index = 0u64;
    let mut last_key = None;
    while index < entries {
        let count = (entries - index).min((chunk.len() / ENTRY_BYTES) as u64) as usize;
        let bytes = &mut chunk[..count * ENTRY_BYTES];
        reader
            .read_exact(bytes)
            .map_err(|error| format!("{name} cannot be read: {error}"))?;
        hasher.update(bytes);
        for raw in bytes.chunks_exact(ENTRY_BYTES) {
            let key = entry_key(raw);
            if index.is_multiple_of(ENTRIES_PER_BLOCK as u64) {
                run.fences.push(fence(key));
            }
            if last_key != Some(key) {
                run.filter.insert(key);
                last_key = Some(key);
            }
            index += 1;
        }
    }
    if hasher.finalize() != crc {
        return Err(format!("{name} does not match its checksum"));
    }
    Ok(run)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fence_search_counts_the_fences_below_like_a_binary_search() {
        // Uniform fences, clumped fences (long runs of one value) and the ends of the range.
        let uniform: Vec<u32> = {
            let mut fences: Vec<u32> = (0..5_000u64)
                .map(|i| fence(dedupcrawl_sketch::mix64(i)))
                .collect();
            fences.sort_unstable();
            fences
        };
        let clumped: Vec<u32> = (0..3_000u32).map(|i| (i / 500) * 700_000_000).collect();
        for fences in [uniform, clumped, vec![], vec![7], vec![0, 0, u32::MAX]] {
            let targets = fences
                .iter()
                .flat_map(|&f| [f.saturating_sub(1), f, f.saturating_add(1)])
                .chain([0, 1, u32::MAX / 2, u32::MAX]);
            for target in targets {
                assert_eq!(
                    fence_search(&fences, target),
                    fences.partition_point(|&first| first < target),
                    "target {target} over {} fences",
                    fences.len()
                );
            }
        }
    }
}
