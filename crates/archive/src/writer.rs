//! The WARC 1.1 writer: one gzip member per record, `warcinfo` first, size-based rotation.

use std::fs::{self, File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use chrono::{DateTime, SubsecRound, Utc};
use flate2::Compression;
use flate2::write::GzEncoder;

pub use crate::capture::*;
use crate::capture::{CONTENT_TYPE_HTTP_REQUEST, CONTENT_TYPE_HTTP_RESPONSE};
use crate::digest::{Sha1Digester, same_sha1, sha1_digest};
use crate::error::ArchiveError;
use crate::headers::RecordType;
use crate::http_head::{serialize_request_head, serialize_response_head, stored_response_headers};
use crate::record::WarcRecord;
use crate::repair::{RepairReport, repair_tail};
use crate::warc_file_names::{existing_files, machine_host_name, sanitize_host_name};

struct OpenWarcFile {
    path: PathBuf,
    file_name: String,
    file: File,
    len: u64,
    warcinfo_id: String,
}

/// Writes WARC 1.1 files (see the crate docs for the exact records).
///
/// Each record is serialized and compressed in memory on its own and written with one
/// `write_all`; nothing else is buffered. A record is never split across files.
pub struct WarcWriter {
    config: WarcWriterConfig,
    host_name: String,
    next_serial: u64,
    current: Option<OpenWarcFile>,
    files_written: Vec<PathBuf>,
}

fn new_record_id() -> String {
    format!("<urn:uuid:{}>", uuid::Uuid::new_v4())
}

/// `WARC-Date` text: UTC, microseconds (allowed by WARC 1.1).
pub(crate) fn format_warc_date(date: &DateTime<Utc>) -> String {
    date.format("%Y-%m-%dT%H:%M:%S%.6fZ").to_string()
}

/// CDXJ mime rule (as cdxj-indexer): the media type before any `;` or whitespace.
pub(crate) fn mime_of_content_type(value: &str) -> String {
    value
        .trim()
        .split(|c: char| c == ';' || c.is_whitespace())
        .next()
        .unwrap_or_default()
        .trim()
        .to_string()
}

fn check_uri(uri: &str) -> Result<(), ArchiveError> {
    if uri.is_empty() || uri.chars().any(|c| c.is_whitespace() || c.is_control()) {
        Err(ArchiveError::InvalidInput(format!(
            "target URI {uri:?} is empty or contains whitespace"
        )))
    } else {
        Ok(())
    }
}

fn check_field_value(what: &str, value: &str) -> Result<(), ArchiveError> {
    if value.contains(['\r', '\n']) {
        Err(ArchiveError::InvalidInput(format!(
            "{what} contains a line break"
        )))
    } else {
        Ok(())
    }
}

/// Fields of the WARC header that vary per record (the common ones are added by `write_record`).
struct RecordSpec<'a> {
    record_type: RecordType,
    record_id: String,
    date: DateTime<Utc>,
    target_uri: Option<&'a str>,
    /// Fields written after `WARC-Target-URI`, in order.
    fields: Vec<(&'static str, String)>,
    content_type: &'a str,
    /// Start of the block that is not payload (HTTP head); may be empty.
    head: &'a [u8],
    /// The payload: the rest of the block.
    payload: &'a [u8],
    /// Write `WARC-Payload-Digest`: `None` = no, `Some(None)` = computed, `Some(Some(d))` = `d`.
    payload_digest: Option<Option<String>>,
}

/// Result of writing one record.
struct Written {
    file_name: String,
    offset: u64,
    length: u64,
    payload_digest: String,
}

impl WarcWriter {
    /// A writer for `config.dir`. The first file is created at the first write; its serial
    /// follows the highest one already in the directory for this prefix and host, so a writer
    /// never appends to an existing file.
    pub fn open(config: WarcWriterConfig) -> Result<Self, ArchiveError> {
        if config.prefix.is_empty()
            || config
                .prefix
                .chars()
                .any(|c| c == '/' || c == '\\' || c.is_whitespace() || c.is_control())
        {
            return Err(ArchiveError::InvalidInput(format!(
                "WARC file prefix {:?} must be non-empty, without separators or whitespace",
                config.prefix
            )));
        }
        for (name, _) in &config.warcinfo_fields {
            if name.is_empty() || name.contains(':') || name.chars().any(char::is_whitespace) {
                return Err(ArchiveError::InvalidInput(format!(
                    "warcinfo field name {name:?} must be non-empty, without ':' or whitespace"
                )));
            }
        }
        check_field_value("software", &config.software)?;
        fs::create_dir_all(&config.dir)
            .map_err(|e| ArchiveError::io("create directory", &config.dir, e))?;
        let host_name = match &config.host_name {
            Some(name) => sanitize_host_name(name),
            None => machine_host_name(),
        };
        let next_serial = existing_files(&config.dir, &config.prefix, &host_name)?
            .last()
            .map_or(1, |(serial, _)| serial + 1);
        Ok(WarcWriter {
            config,
            host_name,
            next_serial,
            current: None,
            files_written: Vec::new(),
        })
    }

    /// Reopens a directory after a crash: runs [`repair_tail`] on the newest file of this prefix
    /// and host (removing it if nothing valid is left), then opens a writer that starts a new
    /// file with the next serial.
    pub fn resume(config: WarcWriterConfig) -> Result<(Self, Option<RepairReport>), ArchiveError> {
        let writer = Self::open(config)?;
        let existing =
            existing_files(&writer.config.dir, &writer.config.prefix, &writer.host_name)?;
        let Some((_, newest)) = existing.last() else {
            return Ok((writer, None));
        };
        let report = repair_tail(newest)?;
        if report.new_len == 0 {
            fs::remove_file(newest).map_err(|e| ArchiveError::io("remove", newest, e))?;
        }
        Ok((writer, Some(report)))
    }

    /// The file being written, if one is open.
    pub fn current_file(&self) -> Option<&Path> {
        self.current.as_ref().map(|open| open.path.as_path())
    }

    /// Every file this writer created, in order.
    pub fn files_written(&self) -> &[PathBuf] {
        &self.files_written
    }

    /// The host name used in file names.
    pub fn host_name(&self) -> &str {
        &self.host_name
    }

    /// Writes the `response` record and its `request` record for a newly archived page.
    pub fn write_capture(
        &mut self,
        capture: &Capture<'_>,
    ) -> Result<CaptureLocations, ArchiveError> {
        check_uri(capture.target_uri)?;
        let headers = stored_response_headers(
            capture.response,
            capture.body.len(),
            capture.content_decoded,
        );
        let head = serialize_response_head(capture.response, &headers)?;
        let mut fields = Vec::new();
        if let Some(ip) = capture.remote_ip {
            fields.push(("WARC-IP-Address", ip.to_string()));
        }
        if capture.truncated {
            fields.push(("WARC-Truncated", "length".to_string()));
        }
        let mime = content_type_mime(&capture.response.headers);
        self.rotate_if_full()?;
        let response = self.write_located(
            RecordSpec {
                record_type: RecordType::Response,
                record_id: new_record_id(),
                date: capture.fetch_time,
                target_uri: Some(capture.target_uri),
                fields,
                content_type: CONTENT_TYPE_HTTP_RESPONSE,
                head: &head,
                payload: capture.body,
                payload_digest: Some(capture.payload_digest.map(str::to_string)),
            },
            mime,
            Some(capture.response.status),
        )?;
        let request = self.write_request(capture, &response.record_id)?;
        Ok(CaptureLocations { response, request })
    }

    /// Writes a `revisit` (profile identical-payload-digest) for a capture whose payload is
    /// byte-identical to `original`'s, plus its `request`. The block holds only the HTTP
    /// headers. Fails with [`ArchiveError::RevisitDigestMismatch`] when the body's digest is not
    /// the original's.
    pub fn write_identical_payload_revisit(
        &mut self,
        capture: &Capture<'_>,
        original: &OriginalCapture,
    ) -> Result<CaptureLocations, ArchiveError> {
        check_uri(capture.target_uri)?;
        let digest = capture
            .payload_digest
            .map_or_else(|| sha1_digest(capture.body), str::to_string);
        if let Some(original_digest) = &original.payload_digest
            && !same_sha1(&digest, original_digest)
        {
            return Err(ArchiveError::RevisitDigestMismatch {
                target_uri: capture.target_uri.to_string(),
                computed: digest,
                original: original_digest.clone(),
            });
        }
        let headers = stored_response_headers(
            capture.response,
            capture.body.len(),
            capture.content_decoded,
        );
        let head = serialize_response_head(capture.response, &headers)?;
        self.write_revisit(
            capture,
            original,
            PROFILE_IDENTICAL_PAYLOAD_DIGEST,
            &head,
            Some(digest),
        )
    }

    /// Writes a `revisit` (profile server-not-modified) for a `304` answer to a conditional
    /// request, plus its `request`. The block is the 304 head as received.
    pub fn write_not_modified_revisit(
        &mut self,
        capture: &Capture<'_>,
        original: &OriginalCapture,
    ) -> Result<CaptureLocations, ArchiveError> {
        check_uri(capture.target_uri)?;
        let headers = capture
            .response
            .headers
            .iter()
            .map(|(name, value)| (name.as_str().into(), value.as_slice().into()))
            .collect();
        let head = serialize_response_head(capture.response, &headers)?;
        self.write_revisit(
            capture,
            original,
            PROFILE_SERVER_NOT_MODIFIED,
            &head,
            original.payload_digest.clone(),
        )
    }

    fn write_revisit(
        &mut self,
        capture: &Capture<'_>,
        original: &OriginalCapture,
        profile: &str,
        head: &[u8],
        payload_digest: Option<String>,
    ) -> Result<CaptureLocations, ArchiveError> {
        check_uri(&original.target_uri)?;
        let mut fields = Vec::new();
        if let Some(ip) = capture.remote_ip {
            fields.push(("WARC-IP-Address", ip.to_string()));
        }
        fields.push(("WARC-Profile", profile.to_string()));
        if let Some(record_id) = &original.record_id {
            check_field_value("original record id", record_id)?;
            fields.push(("WARC-Refers-To", record_id.clone()));
        }
        fields.push(("WARC-Refers-To-Target-URI", original.target_uri.clone()));
        fields.push((
            "WARC-Refers-To-Date",
            format_warc_date(&original.warc_date.trunc_subsecs(6)),
        ));
        if let Some(digest) = &payload_digest {
            check_field_value("payload digest", digest)?;
        }
        self.rotate_if_full()?;
        let response = self.write_located(
            RecordSpec {
                record_type: RecordType::Revisit,
                record_id: new_record_id(),
                date: capture.fetch_time,
                target_uri: Some(capture.target_uri),
                fields,
                content_type: CONTENT_TYPE_HTTP_RESPONSE,
                head,
                payload: b"",
                payload_digest: payload_digest.map(Some),
            },
            Some("warc/revisit".to_string()),
            Some(capture.response.status),
        )?;
        let request = self.write_request(capture, &response.record_id)?;
        Ok(CaptureLocations { response, request })
    }

    fn write_request(
        &mut self,
        capture: &Capture<'_>,
        response_id: &str,
    ) -> Result<RecordLocation, ArchiveError> {
        let head = serialize_request_head(capture.request)?;
        self.write_located(
            RecordSpec {
                record_type: RecordType::Request,
                record_id: new_record_id(),
                date: capture.fetch_time,
                target_uri: Some(capture.target_uri),
                fields: vec![("WARC-Concurrent-To", response_id.to_string())],
                content_type: CONTENT_TYPE_HTTP_REQUEST,
                head: &head,
                payload: b"",
                payload_digest: Some(None),
            },
            None,
            None,
        )
    }

    /// Writes a `metadata` record.
    pub fn write_metadata(
        &mut self,
        metadata: &MetadataRecord<'_>,
    ) -> Result<RecordLocation, ArchiveError> {
        self.write_about(RecordType::Metadata, metadata)
    }

    /// Writes a `conversion` record: another form of the payload of the record it
    /// `refers_to` (a page's DOM as a browser rendered it, `text/html`).
    pub fn write_conversion(
        &mut self,
        conversion: &MetadataRecord<'_>,
    ) -> Result<RecordLocation, ArchiveError> {
        self.write_about(RecordType::Conversion, conversion)
    }

    fn write_about(
        &mut self,
        record_type: RecordType,
        metadata: &MetadataRecord<'_>,
    ) -> Result<RecordLocation, ArchiveError> {
        check_uri(metadata.target_uri)?;
        check_field_value("content type", metadata.content_type)?;
        let mut fields = Vec::new();
        if let Some(id) = metadata.concurrent_to {
            check_field_value("concurrent record id", id)?;
            fields.push(("WARC-Concurrent-To", id.to_string()));
        }
        if let Some(id) = metadata.refers_to {
            check_field_value("referred record id", id)?;
            fields.push(("WARC-Refers-To", id.to_string()));
        }
        self.rotate_if_full()?;
        self.write_located(
            RecordSpec {
                record_type,
                record_id: new_record_id(),
                date: metadata.date,
                target_uri: Some(metadata.target_uri),
                fields,
                content_type: metadata.content_type,
                head: b"",
                payload: metadata.body,
                payload_digest: None,
            },
            Some(mime_of_content_type(metadata.content_type)),
            None,
        )
    }

    /// Writes near-duplicate provenance as an `application/json` `metadata` record:
    /// `{"type":"near-duplicate","original_uri":..,"original_date":..,"original_record_id":..,
    /// "similarity":..,"method":..}`, `WARC-Refers-To` the original's record when known and
    /// `WARC-Concurrent-To` the capture's own record when one was written.
    pub fn write_near_duplicate_metadata(
        &mut self,
        target_uri: &str,
        date: DateTime<Utc>,
        concurrent_to: Option<&str>,
        provenance: &NearDuplicateProvenance,
    ) -> Result<RecordLocation, ArchiveError> {
        let body = serde_json::json!({
            "type": "near-duplicate",
            "original_uri": provenance.original_uri,
            "original_date": provenance.original_date.map(|d| format_warc_date(&d.trunc_subsecs(6))),
            "original_record_id": provenance.original_record_id,
            "similarity": provenance.similarity,
            "method": provenance.method,
            "text": provenance.text,
        })
        .to_string();
        self.write_metadata(&MetadataRecord {
            target_uri,
            date,
            content_type: "application/json",
            body: body.as_bytes(),
            concurrent_to,
            refers_to: provenance.original_record_id.as_deref(),
        })
    }

    /// Flushes the current file to disk (`fsync`). Call before recording crawl progress.
    pub fn flush(&mut self) -> Result<(), ArchiveError> {
        if let Some(open) = &mut self.current {
            open.file
                .flush()
                .and_then(|()| open.file.sync_data())
                .map_err(|e| ArchiveError::io("sync", &open.path, e))?;
        }
        Ok(())
    }

    /// Flushes and closes the current file; returns every file this writer created.
    pub fn close(mut self) -> Result<Vec<PathBuf>, ArchiveError> {
        self.flush()?;
        self.current = None;
        Ok(std::mem::take(&mut self.files_written))
    }

    fn rotate_if_full(&mut self) -> Result<(), ArchiveError> {
        if self
            .current
            .as_ref()
            .is_some_and(|open| open.len >= self.config.max_file_size)
        {
            self.flush()?;
            self.current = None;
        }
        Ok(())
    }

    fn write_located(
        &mut self,
        spec: RecordSpec<'_>,
        mime: Option<String>,
        http_status: Option<u16>,
    ) -> Result<RecordLocation, ArchiveError> {
        let record_type = spec.record_type;
        let record_id = spec.record_id.clone();
        let warc_date = spec.date.trunc_subsecs(6);
        let target_uri = spec.target_uri.unwrap_or_default().to_string();
        let written = self.write_record(spec)?;
        Ok(RecordLocation {
            file_name: written.file_name,
            offset: written.offset,
            length: written.length,
            record_id,
            record_type,
            warc_date,
            target_uri,
            payload_digest: written.payload_digest,
            mime,
            http_status,
        })
    }

    fn open_next_file(&mut self) -> Result<(), ArchiveError> {
        let now = Utc::now();
        let file_name = format!(
            "{}-{}-{:05}-{}{}",
            self.config.prefix,
            now.format("%Y%m%d%H%M%S"),
            self.next_serial,
            self.host_name,
            self.config.compression.extension()
        );
        let path = self.config.dir.join(&file_name);
        let file = OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&path)
            .map_err(|e| ArchiveError::io("create", &path, e))?;
        // Make the new directory entry durable too, so a crash cannot lose the whole file.
        if let Ok(dir) = File::open(&self.config.dir) {
            let _ = dir.sync_all();
        }
        self.next_serial += 1;
        self.files_written.push(path.clone());
        let warcinfo_id = new_record_id();
        self.current = Some(OpenWarcFile {
            path,
            file_name: file_name.clone(),
            file,
            len: 0,
            warcinfo_id: warcinfo_id.clone(),
        });
        let block = self.warcinfo_block(&file_name);
        let written = self.write_record(RecordSpec {
            record_type: RecordType::Warcinfo,
            record_id: warcinfo_id,
            date: now,
            target_uri: None,
            fields: vec![("WARC-Filename", file_name)],
            content_type: CONTENT_TYPE_WARC_FIELDS,
            head: b"",
            payload: &block,
            payload_digest: None,
        });
        if let Err(error) = written {
            // Records must never follow a missing warcinfo: the next write starts a new file.
            self.current = None;
            return Err(error);
        }
        Ok(())
    }

    fn warcinfo_block(&self, file_name: &str) -> Vec<u8> {
        let mut block = String::new();
        let mut field = |name: &str, value: &str| {
            block.push_str(name);
            block.push_str(": ");
            block.push_str(&value.replace(['\r', '\n'], " "));
            block.push_str("\r\n");
        };
        field("software", &self.config.software);
        field("format", "WARC File Format 1.1");
        field(
            "conformsTo",
            "http://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/",
        );
        field("hostname", &self.host_name);
        field("filename", file_name);
        for (name, value) in &self.config.warcinfo_fields {
            field(name, value);
        }
        block.into_bytes()
    }

    /// Serializes, compresses and appends one record. On a failed write the file is cut back
    /// to where the record started, so a later record never follows a partial one.
    fn write_record(&mut self, spec: RecordSpec<'_>) -> Result<Written, ArchiveError> {
        if self.current.is_none() {
            self.open_next_file()?;
        }
        let Some(open) = self.current.as_ref() else {
            return Err(ArchiveError::InvalidInput("no WARC file open".to_string()));
        };
        let mut block_digester = Sha1Digester::default();
        block_digester.update(spec.head);
        block_digester.update(spec.payload);
        let block_digest = block_digester.finish();

        let mut header = String::with_capacity(512);
        let mut field = |name: &str, value: &str| {
            header.push_str(name);
            header.push_str(": ");
            header.push_str(value);
            header.push_str("\r\n");
        };
        field("WARC-Type", spec.record_type.as_str());
        field("WARC-Record-ID", &spec.record_id);
        field("WARC-Date", &format_warc_date(&spec.date.trunc_subsecs(6)));
        if let Some(uri) = spec.target_uri {
            field("WARC-Target-URI", uri);
        }
        for (name, value) in &spec.fields {
            field(name, value);
        }
        if spec.record_type != RecordType::Warcinfo {
            field("WARC-Warcinfo-ID", &open.warcinfo_id);
        }
        field("Content-Type", spec.content_type);
        field("WARC-Block-Digest", &block_digest);
        let payload_digest = match spec.payload_digest {
            Some(Some(given)) => {
                // A revisit's digest is its original's payload (it has none of its own).
                debug_assert!(
                    spec.record_type != RecordType::Response
                        || same_sha1(&given, &sha1_digest(spec.payload)),
                    "the payload digest given is not the payload's"
                );
                field("WARC-Payload-Digest", &given);
                given
            }
            Some(None) => {
                let computed = sha1_digest(spec.payload);
                field("WARC-Payload-Digest", &computed);
                computed
            }
            None => sha1_digest(spec.payload),
        };
        let block_len = spec.head.len() + spec.payload.len();
        field("Content-Length", &block_len.to_string());

        let parts: [&[u8]; 6] = [
            b"WARC/1.1\r\n",
            header.as_bytes(),
            b"\r\n",
            spec.head,
            spec.payload,
            b"\r\n\r\n",
        ];
        let (file_name, offset, length) = self.append_stored(&parts)?;
        Ok(Written {
            file_name,
            offset,
            length,
            payload_digest,
        })
    }

    /// Copies a record read from another file unchanged: version line, header fields and block
    /// as read; only the framing (one gzip member per record) is this writer's. Used for
    /// deduplicated copies of other crawlers' archives. Returns (file name, offset, length).
    pub fn write_verbatim(
        &mut self,
        record: &WarcRecord,
    ) -> Result<(String, u64, u64), ArchiveError> {
        self.rotate_if_full()?;
        if self.current.is_none() {
            self.open_next_file()?;
        }
        let mut header = String::with_capacity(512);
        header.push_str(record.version.trim());
        header.push_str("\r\n");
        for (name, value) in record.headers.iter() {
            header.push_str(name);
            header.push_str(": ");
            header.push_str(value);
            header.push_str("\r\n");
        }
        header.push_str("\r\n");
        self.append_stored(&[header.as_bytes(), &record.block, b"\r\n\r\n"])
    }

    /// Appends one serialized record (compressed as its own gzip member when configured) to the
    /// current file; on a failed write the partial record is cut off again.
    fn append_stored(&mut self, parts: &[&[u8]]) -> Result<(String, u64, u64), ArchiveError> {
        let compression = self.config.compression;
        let level = Compression::new(self.config.gzip_level.clamp(1, 9));
        let Some(open) = self.current.as_mut() else {
            return Err(ArchiveError::InvalidInput("no WARC file open".to_string()));
        };
        let total: usize = parts.iter().map(|p| p.len()).sum();
        let stored = match compression {
            WarcCompression::Gzip => {
                let mut encoder = GzEncoder::new(Vec::with_capacity(total / 2 + 1024), level);
                for part in parts {
                    encoder
                        .write_all(part)
                        .map_err(|e| ArchiveError::io("compress record for", &open.path, e))?;
                }
                encoder
                    .finish()
                    .map_err(|e| ArchiveError::io("compress record for", &open.path, e))?
            }
            WarcCompression::None => parts.concat(),
        };
        let offset = open.len;
        if let Err(error) = open.file.write_all(&stored) {
            // Best effort: drop the partial record so the file stays valid.
            let _ = open.file.set_len(offset);
            let _ = open.file.seek(SeekFrom::Start(offset));
            return Err(ArchiveError::io("write", &open.path, error));
        }
        open.len += stored.len() as u64;
        // For plain files warcio and cdxj-indexer count a record without its closing CRLFCRLF.
        let length = match compression {
            WarcCompression::Gzip => stored.len(),
            WarcCompression::None => stored.len() - 4,
        };
        Ok((open.file_name.clone(), offset, length as u64))
    }
}

fn content_type_mime(headers: &[(String, Vec<u8>)]) -> Option<String> {
    headers
        .iter()
        .find(|(name, _)| name.eq_ignore_ascii_case("content-type"))
        .map(|(_, value)| mime_of_content_type(&String::from_utf8_lossy(value)))
}

impl Drop for WarcWriter {
    fn drop(&mut self) {
        // Best effort; callers that care about errors call `close`.
        let _ = self.flush();
    }
}

impl std::fmt::Debug for WarcWriter {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WarcWriter")
            .field("dir", &self.config.dir)
            .field("prefix", &self.config.prefix)
            .field("current_file", &self.current_file())
            .field("next_serial", &self.next_serial)
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mime_drops_parameters() {
        assert_eq!(
            mime_of_content_type("text/html; charset=utf-8"),
            "text/html"
        );
        assert_eq!(mime_of_content_type(" text/plain "), "text/plain");
    }
}
