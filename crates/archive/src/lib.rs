//! dedupcrawl-archive (work in progress).
