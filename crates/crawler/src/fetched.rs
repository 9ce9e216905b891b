//! A response and what we know about the URL it answers ([`Fetched`]), with the crawl-log
//! line it starts from; what is done with it: [`crate::page`].

use std::cell::RefCell;

use dedupcrawl_fetch::FetchedResponse;
use dedupcrawl_frontier::{CanonicalUrl, EntryKind, HostOutcome, Lease};
use dedupcrawl_sketch::PayloadDigest;

use crate::context::Engine;
use crate::crawl_log::{Decision, LogLine};
use crate::crawl_state::{ArchivedRecord, RevisitState};
use crate::error::CrawlError;
use crate::revisit::Visit;

/// What handling a response gives the crawl loop: the frontier outcome and, for a retryable
/// failure, the line to log if the frontier gives up.
pub(crate) type Handled = Result<(HostOutcome, Option<LogLine>), CrawlError>;

/// A response and what we know about the URL it answers.
pub(crate) struct Fetched<'a> {
    pub(crate) engine: &'a Engine,
    pub(crate) url: CanonicalUrl,
    pub(crate) depth: u32,
    /// Duplicates in a row whose new links led here ([`FrontierEntry::duplicate_hops`]).
    pub(crate) duplicate_hops: u8,
    via: Option<String>,
    /// How the URL came to the frontier (a script file is read for links, not parsed).
    pub(crate) kind: EntryKind,
    pub(crate) response: FetchedResponse,
    /// The response body's SHA-1, computed once: the index, the WARC header, the CDXJ line and
    /// the state all take it from here.
    pub(crate) payload_digest: PayloadDigest,
    /// [`payload_digest`](Self::payload_digest) as `sha1:BASE32`.
    digest: String,
    /// Recrawl: what an earlier round knows of the URL.
    pub(crate) previous: Option<RevisitState>,
    /// What the state has archived for the URL: read before the fetch, then this fetch's own
    /// record once remembered (the URL is leased to this fetch alone, so nobody else writes
    /// it meanwhile).
    pub(crate) archived: RefCell<Option<ArchivedRecord>>,
    /// What this fetch found, for the URL's revisit state.
    pub(crate) visit: RefCell<Visit>,
    /// The page's DOM as the browser rendered it (`crawl.render`), archived as a
    /// `conversion` record beside the response.
    pub(crate) rendered: RefCell<Option<String>>,
    /// What rendering did, for the page's crawl-log line.
    pub(crate) render_note: RefCell<Option<String>>,
}

impl<'a> Fetched<'a> {
    pub(crate) fn new(
        engine: &'a Engine,
        lease: &Lease,
        response: FetchedResponse,
        previous: Option<RevisitState>,
        archived: Option<ArchivedRecord>,
    ) -> Fetched<'a> {
        let payload_digest = PayloadDigest::of(&response.body);
        let digest = payload_digest.to_string();
        Fetched {
            engine,
            url: lease.url().clone(),
            depth: lease.entry.depth,
            duplicate_hops: lease.entry.duplicate_hops,
            via: lease.entry.via.clone(),
            kind: lease.entry.kind,
            response,
            payload_digest,
            digest,
            previous,
            archived: RefCell::new(archived),
            visit: RefCell::new(Visit::default()),
            rendered: RefCell::new(None),
            render_note: RefCell::new(None),
        }
    }

    /// The response back, with what is archived for the URL (to hand both to
    /// [`handle_response`]).
    pub(crate) fn into_response(self) -> (FetchedResponse, Option<ArchivedRecord>) {
        (self.response, self.archived.into_inner())
    }

    /// The page (or sitemap, or redirecting URL) the URL was found on.
    pub(crate) fn via(&self) -> Option<&str> {
        self.via.as_deref()
    }

    /// The payload digest (`sha1:BASE32`).
    pub(crate) fn digest(&self) -> &str {
        &self.digest
    }

    /// Records the URL's revisit state from this fetch (after its crawl-log line).
    pub(crate) fn record_visit(&self, visit: Visit) -> Result<(), CrawlError> {
        crate::revisit::record_visit(
            self.engine,
            &self.url,
            self.previous.as_ref(),
            self.depth,
            &self.response,
            Some(&self.digest),
            visit,
        )
    }
}

impl Fetched<'_> {
    pub(crate) fn line(&self, decision: Decision) -> LogLine {
        let mut line = LogLine::new(self.url.as_str(), decision, self.depth, self.via.clone());
        line.status = Some(self.response.status);
        line.content_digest = Some(self.digest.clone());
        line.bytes = Some(self.response.body.len() as u64);
        line.found_in = crate::crawl_log::found_in(self.kind);
        line.rendered = self.rendered.borrow().is_some().then_some(true);
        if self.response.body_truncated {
            line.note = Some(format!(
                "body truncated at {} bytes",
                self.response.body.len()
            ));
        }
        if let Some(previous) = &self.previous {
            line.previous_digest = previous.payload_digest.clone();
            line.change_similarity = self.visit.borrow().similarity;
        }
        if let Some(note) = self.render_note.borrow().as_deref() {
            Fetched::add_note(&mut line, note);
        }
        line
    }

    pub(crate) fn add_note(line: &mut LogLine, note: &str) {
        line.note = Some(match line.note.take() {
            Some(existing) => format!("{existing}; {note}"),
            None => note.to_string(),
        });
    }
}
