//! A compaction: the merge a thread of its own runs per table, and the thread that deletes merged runs once sled is flushed.

use std::path::{Path, PathBuf};

use super::entry::*;
use super::recent::RecentEntries;
use super::run_file::*;
use crate::IndexError;
use crate::record::DocumentId;

/// A compaction running on its own thread.
pub(super) struct PendingCompaction {
    pub(super) covered: DocumentId,
    pub(super) thread: std::thread::JoinHandle<Result<Vec<MergedRun>, IndexError>>,
}

/// A run a compaction wrote, and the runs of its table it replaces (`merge_from..`).
pub(super) struct MergedRun {
    pub(super) table: Table,
    pub(super) merge_from: usize,
    pub(super) run: Run,
}

/// What a compaction merges for one table.
pub(super) struct MergeJob {
    pub(super) table: Table,
    pub(super) entries: std::sync::Arc<RecentEntries>,
    /// The runs merged in: path and entries.
    pub(super) runs: Vec<(PathBuf, u64)>,
    pub(super) merge_from: usize,
    pub(super) generation: u64,
    pub(super) expected: u64,
}

impl MergeJob {
    pub(super) fn run(self, dir: &Path) -> Result<MergedRun, IndexError> {
        let mut writer = RunWriter::create(dir, self.table, self.generation, self.expected)?;
        let mut inputs = vec![MergeInput::of_entries(self.entries.sorted())];
        for (path, entries) in &self.runs {
            inputs.push(MergeInput::of_run(path, *entries)?);
        }
        loop {
            let mut smallest: Option<(usize, (u64, DocumentId))> = None;
            for (index, input) in inputs.iter().enumerate() {
                if let Some(head) = input.head()
                    && smallest.is_none_or(|(_, best)| head < best)
                {
                    smallest = Some((index, head));
                }
            }
            let Some((index, (key, id))) = smallest else {
                break;
            };
            writer.push(key, id)?;
            inputs[index].advance()?;
        }
        Ok(MergedRun {
            table: self.table,
            merge_from: self.merge_from,
            run: writer.finish()?,
        })
    }
}

/// A thread that flushes sled and then deletes the files of merged runs, so that sled cannot
/// roll back to a listing that names a deleted file. The flush waits for the disk; decisions
/// need not wait for it. Batches that arrive during a flush share the next one.
pub(super) struct ObsoleteRunDeleter {
    pub(super) tree: sled::Tree,
    pub(super) sender: Option<std::sync::mpsc::Sender<Vec<PathBuf>>>,
    pub(super) thread: Option<std::thread::JoinHandle<()>>,
}

impl ObsoleteRunDeleter {
    pub(super) fn new(tree: &sled::Tree) -> Self {
        ObsoleteRunDeleter {
            tree: tree.clone(),
            sender: None,
            thread: None,
        }
    }

    pub(super) fn delete_after_flush(&mut self, files: Vec<PathBuf>) {
        if files.is_empty() {
            return;
        }
        let sender = self.sender.get_or_insert_with(|| {
            let (sender, receiver) = std::sync::mpsc::channel::<Vec<PathBuf>>();
            let tree = self.tree.clone();
            self.thread = std::thread::Builder::new()
                .name("index-run-deleter".into())
                .spawn(move || {
                    while let Ok(mut files) = receiver.recv() {
                        while let Ok(more) = receiver.try_recv() {
                            files.extend(more);
                        }
                        // Not flushed: the files stay, and the next open deletes them.
                        if tree.flush().is_ok() {
                            for file in files {
                                let _ = std::fs::remove_file(file);
                            }
                        }
                    }
                })
                .ok();
            sender
        });
        let _ = sender.send(files);
    }
}

impl Drop for ObsoleteRunDeleter {
    fn drop(&mut self) {
        self.sender = None;
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}
