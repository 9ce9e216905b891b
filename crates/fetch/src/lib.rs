//! dedupcrawl-fetch (work in progress).
