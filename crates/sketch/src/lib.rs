//! dedupcrawl-sketch (work in progress).
