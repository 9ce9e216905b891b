//! dedupcrawl-crawler (work in progress).
