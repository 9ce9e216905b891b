//! dedupcrawl-index (work in progress).
