//! The archive side of a page ([`Fetched`]): what was archived for its URL, and the WARC
//! records it writes (a `response` + `request` capture, an identical-payload `revisit` of an
//! original, a near duplicate's `metadata`), each remembered in the crawl state under the
//! archive lock.

use dedupcrawl_archive::{
    Capture, CaptureLocations, HttpRequestHead, HttpResponseHead, NearDuplicateProvenance,
    OriginalCapture, RecordLocation,
};

use dedupcrawl_stagecpu::Stage;

use crate::crawl_state::ArchivedRecord;
use crate::error::CrawlError;
use crate::fetched::Fetched;
use crate::mutex::lock;

impl Fetched<'_> {
    /// What this round already archived for the URL (an earlier run of the round: resume).
    pub(crate) fn already_archived(&self) -> Option<ArchivedRecord> {
        self.archived
            .borrow()
            .clone()
            .filter(|record| record.round >= self.engine.round.number)
    }

    /// What an earlier fetch archived for `url` (its record location), if anything.
    fn archived_record(&self, url: &str) -> Result<Option<ArchivedRecord>, CrawlError> {
        self.engine.crawl_state.archived_record(url)
    }

    /// This fetch as a WARC capture, with heads from [`heads`](Self::heads).
    pub(crate) fn capture<'a>(
        &'a self,
        request: &'a HttpRequestHead,
        response: &'a HttpResponseHead,
    ) -> Capture<'a> {
        Capture {
            target_uri: self.url.as_str(),
            fetch_time: self.response.started_at,
            remote_ip: self.response.remote_addr.map(|a| a.ip()),
            request,
            response,
            body: &self.response.body,
            truncated: self.response.body_truncated,
            content_decoded: self.response.content_was_decoded,
            payload_digest: Some(self.digest()),
        }
    }

    /// The request and response heads as archived: the request's credential headers
    /// redacted unless `archive.keep_credential_headers`.
    pub(crate) fn heads(&self) -> (HttpRequestHead, HttpResponseHead) {
        let request = &self.response.request;
        let mut request_headers = request.headers.clone();
        if !self.engine.config.archive.keep_credential_headers {
            crate::credentials::redact_credential_headers(&mut request_headers);
        }
        (
            HttpRequestHead {
                method: request.method.clone(),
                target: request.target.clone(),
                version: request.version.as_str().to_string(),
                headers: request_headers,
            },
            HttpResponseHead {
                version: self.response.version.as_str().to_string(),
                status: self.response.status,
                reason: self.response.reason.clone(),
                headers: self.response.headers.clone(),
            },
        )
    }

    pub(crate) fn remember(&self, location: &RecordLocation) -> Result<(), CrawlError> {
        let info = ArchivedRecord {
            record_type: location.record_type.as_str().to_string(),
            record_id: Some(location.record_id.clone()),
            date: Some(location.warc_date),
            payload_digest: Some(location.payload_digest.clone()),
            round: self.engine.round.number,
        };
        if info.record_type == "response" {
            // The version later revisits refer to.
            self.visit.borrow_mut().record = Some(info.clone());
        }
        self.engine
            .crawl_state
            .record_archived(self.url.as_str(), &info)?;
        *self.archived.borrow_mut() = Some(info);
        Ok(())
    }

    /// Runs `work` (records written) as the page's [`Stage::Archive`] CPU.
    fn timed_archive<T>(&self, work: impl FnOnce() -> T) -> T {
        self.engine.stage.stage_cpu().time(Stage::Archive, work)
    }

    /// Writes `response` + `request` unless an earlier run already did (resume).
    pub(crate) fn archive_capture(&self) -> Result<(), CrawlError> {
        self.timed_archive(|| {
            if self.already_archived().is_some() {
                return Ok(());
            }
            let (request, response) = self.heads();
            let capture = self.capture(&request, &response);
            // Remembered while the archive lock is held: a checkpoint (which reads the WARC
            // position under the same lock) never covers a record the state does not know.
            let mut sink = lock(&self.engine.archive);
            let written: CaptureLocations = sink.warc.write_capture(&capture)?;
            sink.cdxj.append_location(&written.response)?;
            sink.cdxj.append_location(&written.request)?;
            if let Some(dom) = self.rendered.borrow().as_deref() {
                sink.warc
                    .write_conversion(&dedupcrawl_archive::MetadataRecord {
                        target_uri: capture.target_uri,
                        date: capture.fetch_time,
                        content_type: "text/html; charset=utf-8",
                        body: dom.as_bytes(),
                        concurrent_to: None,
                        refers_to: Some(&written.response.record_id),
                    })?;
            }
            self.remember(&written.response)
        })
    }

    /// Writes an identical-payload `revisit` pointing at `original`'s capture, if it was
    /// archived. Returns whether one was written.
    pub(crate) fn archive_revisit(&self, original_url: &str) -> Result<bool, CrawlError> {
        self.timed_archive(|| {
            if self.already_archived().is_some() {
                return Ok(true);
            }
            let Some(original) = self.archived_record(original_url)? else {
                return Ok(false);
            };
            if original.record_type != "response" {
                return Ok(false);
            }
            let Some(warc_date) = original.date else {
                return Ok(false);
            };
            let (request, response) = self.heads();
            let capture = self.capture(&request, &response);
            let original = OriginalCapture {
                target_uri: original_url.to_string(),
                warc_date,
                record_id: original.record_id,
                payload_digest: original.payload_digest,
            };
            let mut sink = lock(&self.engine.archive);
            match sink
                .warc
                .write_identical_payload_revisit(&capture, &original)
            {
                Ok(written) => {
                    sink.cdxj.append_location(&written.response)?;
                    // Under the archive lock, as in `archive_capture`.
                    self.remember(&written.response)?;
                    Ok(true)
                }
                Err(dedupcrawl_archive::ArchiveError::RevisitDigestMismatch { .. }) => Ok(false),
                Err(error) => Err(error.into()),
            }
        })
    }

    /// Near duplicates under `archive.near_duplicates = metadata`.
    pub(crate) fn archive_near_duplicate_metadata(
        &self,
        original_url: &str,
        similarity: f64,
        method: &str,
        text: Option<String>,
    ) -> Result<(), CrawlError> {
        self.timed_archive(|| {
            if self.already_archived().is_some() {
                return Ok(());
            }
            let original = self.archived_record(original_url)?;
            let provenance = NearDuplicateProvenance {
                original_uri: original_url.to_string(),
                original_date: original.as_ref().and_then(|o| o.date),
                original_record_id: original.and_then(|o| o.record_id),
                similarity,
                method: method.to_string(),
                text,
            };
            let mut sink = lock(&self.engine.archive);
            let written = sink.warc.write_near_duplicate_metadata(
                self.url.as_str(),
                self.response.started_at,
                None,
                &provenance,
            )?;
            // Under the archive lock, as in `archive_capture`.
            self.remember(&written)
        })
    }
}
