//! dedupcrawl-textprep (work in progress).
