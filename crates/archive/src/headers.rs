//! Ordered WARC header fields with case-insensitive lookup.

/// The named fields of a WARC record header, in file order. Names keep their spelling; lookups
/// ignore ASCII case (WARC field names are case-insensitive).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WarcHeaders {
    fields: Vec<(String, String)>,
}

impl WarcHeaders {
    /// An empty header list.
    pub fn new() -> Self {
        Self::default()
    }

    /// Appends a field (duplicates are kept, as the format allows for some fields).
    pub fn push(&mut self, name: impl Into<String>, value: impl Into<String>) {
        self.fields.push((name.into(), value.into()));
    }

    /// The first value of `name`.
    pub fn get(&self, name: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(field, _)| field.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// Every value of `name`, in order.
    pub fn get_all<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a str> + 'a {
        self.fields
            .iter()
            .filter(move |(field, _)| field.eq_ignore_ascii_case(name))
            .map(|(_, value)| value.as_str())
    }

    /// All fields in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.fields
            .iter()
            .map(|(name, value)| (name.as_str(), value.as_str()))
    }

    /// Number of fields.
    pub fn len(&self) -> usize {
        self.fields.len()
    }

    /// True when there are no fields.
    pub fn is_empty(&self) -> bool {
        self.fields.is_empty()
    }

    pub(crate) fn last_mut(&mut self) -> Option<&mut (String, String)> {
        self.fields.last_mut()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_ignores_case_and_keeps_order() {
        let mut headers = WarcHeaders::new();
        headers.push("WARC-Type", "response");
        headers.push("WARC-Concurrent-To", "<a>");
        headers.push("warc-concurrent-to", "<b>");
        assert_eq!(headers.get("warc-type"), Some("response"));
        assert_eq!(
            headers.get_all("WARC-CONCURRENT-TO").collect::<Vec<_>>(),
            ["<a>", "<b>"]
        );
        assert_eq!(headers.iter().next(), Some(("WARC-Type", "response")));
        assert_eq!(headers.get("Content-Length"), None);
    }
}

/// The `WARC-Type` of a record.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecordType {
    /// `warcinfo`: describes the file and the crawl.
    Warcinfo,
    /// `response`: a full HTTP response.
    Response,
    /// `resource`: content without a protocol envelope.
    Resource,
    /// `request`: the HTTP request sent.
    Request,
    /// `metadata`: information about another record.
    Metadata,
    /// `revisit`: the content was seen before (duplicate or not modified).
    Revisit,
    /// `conversion`.
    Conversion,
    /// `continuation` (segmented records).
    Continuation,
    /// Any other value.
    Other,
}

impl RecordType {
    /// The `WARC-Type` value.
    pub fn as_str(self) -> &'static str {
        match self {
            RecordType::Warcinfo => "warcinfo",
            RecordType::Response => "response",
            RecordType::Resource => "resource",
            RecordType::Request => "request",
            RecordType::Metadata => "metadata",
            RecordType::Revisit => "revisit",
            RecordType::Conversion => "conversion",
            RecordType::Continuation => "continuation",
            RecordType::Other => "other",
        }
    }

    /// Parses a `WARC-Type` value (case-insensitive); unknown values give `Other`.
    pub fn from_warc_type(value: &str) -> Self {
        [
            RecordType::Warcinfo,
            RecordType::Response,
            RecordType::Resource,
            RecordType::Request,
            RecordType::Metadata,
            RecordType::Revisit,
            RecordType::Conversion,
            RecordType::Continuation,
        ]
        .into_iter()
        .find(|kind| kind.as_str().eq_ignore_ascii_case(value.trim()))
        .unwrap_or(RecordType::Other)
    }
}

impl std::fmt::Display for RecordType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}
