//! dedupcrawl-frontier (work in progress).
