//! Sitemaps (<https://www.sitemaps.org/protocol.html>) parsed with [`quick_xml`].
//!
//! Accepted: XML `<urlset>` (`<loc>`, `<lastmod>` of each `<url>`), XML `<sitemapindex>`
//! (`<loc>`, `<lastmod>` of each nested `<sitemap>`), plain text (one absolute http(s) URL
//! a line), each optionally gzip-compressed (detected by the magic bytes `1f 8b`, not by the
//! file name or Content-Type, which servers get wrong).
//!
//! Limits from the protocol: 50,000 URLs and 50 MB (52,428,800 bytes) uncompressed per file.
//! A larger body is an error ([`SitemapError::TooLarge`]; a gzip bomb stops at the limit);
//! URLs past the 50,000th are dropped and [`Sitemap::truncated`] is set. Extension elements
//! (`<image:loc>`, `<news:...>`) are ignored: only a `<loc>` directly inside `<url>`/`<sitemap>`
//! counts. Malformed XML after at least one entry returns the entries so far (truncated);
//! before any entry it is an error. `lastmod` is returned as written (W3C Datetime).

use std::io::Read;

use flate2::read::MultiGzDecoder;
use quick_xml::events::Event;
use quick_xml::reader::Reader;

/// Size limits of one sitemap file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SitemapLimits {
    /// Most URLs (or nested sitemaps) taken from one file.
    pub max_urls: usize,
    /// Most (uncompressed) bytes accepted.
    pub max_bytes: usize,
}

impl Default for SitemapLimits {
    fn default() -> Self {
        SitemapLimits {
            max_urls: 50_000,
            max_bytes: 52_428_800,
        }
    }
}

/// Which kind of sitemap a file was.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SitemapFormat {
    UrlSet,
    Index,
    Text,
}

/// One `<url>` or `<sitemap>` entry.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SitemapEntry {
    /// The location, as written (whitespace trimmed, XML entities resolved).
    pub loc: String,
    /// `<lastmod>` as written, if present.
    pub lastmod: Option<String>,
}

/// A parsed sitemap file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sitemap {
    pub format: SitemapFormat,
    /// Page URLs (`<urlset>` and text sitemaps).
    pub urls: Vec<SitemapEntry>,
    /// Nested sitemap URLs (`<sitemapindex>`).
    pub sitemaps: Vec<SitemapEntry>,
    /// Entries were dropped (over the URL limit, or malformed XML after some entries).
    pub truncated: bool,
}

/// Why a sitemap could not be read.
#[derive(Debug, thiserror::Error)]
pub enum SitemapError {
    #[error("gzip: {0}")]
    Gzip(#[from] std::io::Error),
    #[error("sitemap larger than {limit} bytes")]
    TooLarge { limit: usize },
    #[error("XML: {0}")]
    Xml(String),
    #[error("not a sitemap (root element <{0}>)")]
    NotASitemap(String),
}

/// Parses a sitemap with the protocol's limits.
pub fn parse_sitemap(bytes: &[u8]) -> Result<Sitemap, SitemapError> {
    parse_sitemap_with(bytes, &SitemapLimits::default())
}

/// Parses a sitemap with the given limits.
pub fn parse_sitemap_with(bytes: &[u8], limits: &SitemapLimits) -> Result<Sitemap, SitemapError> {
    let decompressed;
    let bytes = if bytes.starts_with(&[0x1f, 0x8b]) {
        let mut out = Vec::new();
        // One byte more than allowed tells "exactly at the limit" from "over it".
        let limit = u64::try_from(limits.max_bytes)
            .unwrap_or(u64::MAX)
            .saturating_add(1);
        MultiGzDecoder::new(bytes)
            .take(limit)
            .read_to_end(&mut out)?;
        decompressed = out;
        &decompressed[..]
    } else {
        bytes
    };
    if bytes.len() > limits.max_bytes {
        return Err(SitemapError::TooLarge {
            limit: limits.max_bytes,
        });
    }
    let text = String::from_utf8_lossy(bytes);
    let text = text.trim_start_matches('\u{feff}').trim_start();
    if text.starts_with('<') {
        parse_xml(text, limits)
    } else {
        Ok(parse_text(text, limits))
    }
}

fn parse_text(text: &str, limits: &SitemapLimits) -> Sitemap {
    let mut urls = Vec::new();
    let mut truncated = false;
    for line in text.lines().map(str::trim) {
        let is_url = line
            .get(..7)
            .is_some_and(|s| s.eq_ignore_ascii_case("http://"))
            || line
                .get(..8)
                .is_some_and(|s| s.eq_ignore_ascii_case("https://"));
        if !is_url {
            continue;
        }
        if urls.len() == limits.max_urls {
            truncated = true;
            break;
        }
        urls.push(SitemapEntry {
            loc: line.to_string(),
            lastmod: None,
        });
    }
    Sitemap {
        format: SitemapFormat::Text,
        urls,
        sitemaps: Vec::new(),
        truncated,
    }
}

#[derive(Clone, Copy, PartialEq)]
enum Field {
    Loc,
    Lastmod,
}

fn parse_xml(text: &str, limits: &SitemapLimits) -> Result<Sitemap, SitemapError> {
    let mut reader = Reader::from_str(text);
    let mut format = None;
    let mut entries: Vec<SitemapEntry> = Vec::new();
    let mut truncated = false;
    // Element depth: 1 = root, 2 = <url>/<sitemap>, 3 = <loc>/<lastmod>.
    let mut depth = 0usize;
    let mut in_entry = false;
    let mut entry = SitemapEntry {
        loc: String::new(),
        lastmod: None,
    };
    let mut field: Option<Field> = None;
    let mut value = String::new();

    loop {
        let event = match reader.read_event() {
            Ok(event) => event,
            Err(error) if entries.is_empty() => return Err(SitemapError::Xml(error.to_string())),
            Err(error) => {
                tracing::debug!(%error, "malformed sitemap, keeping the entries so far");
                truncated = true;
                break;
            }
        };
        match event {
            Event::Start(start) => {
                depth += 1;
                let name = start.local_name();
                match depth {
                    1 => format = Some(root_format(name.as_ref())?),
                    2 => {
                        in_entry = matches!(name.as_ref(), "url" | "sitemap");
                        entry = SitemapEntry {
                            loc: String::new(),
                            lastmod: None,
                        };
                    }
                    3 if in_entry => {
                        field = match name.as_ref() {
                            "loc" => Some(Field::Loc),
                            "lastmod" => Some(Field::Lastmod),
                            _ => None,
                        };
                        value.clear();
                    }
                    _ => {}
                }
            }
            Event::Empty(start) if depth == 0 => {
                format = Some(root_format(start.local_name().as_ref())?);
            }
            Event::Text(text) if field.is_some() && depth == 3 => value.push_str(&text),
            Event::CData(data) if field.is_some() && depth == 3 => value.push_str(&data),
            Event::GeneralRef(reference) if field.is_some() && depth == 3 => {
                match reference.resolve_char_ref() {
                    Ok(Some(ch)) => value.push(ch),
                    _ => match &*reference {
                        "amp" => value.push('&'),
                        "lt" => value.push('<'),
                        "gt" => value.push('>'),
                        "quot" => value.push('"'),
                        "apos" => value.push('\''),
                        other => {
                            value.push('&');
                            value.push_str(other);
                            value.push(';');
                        }
                    },
                }
            }
            Event::End(_) => {
                match depth {
                    3 => {
                        let text = value.trim();
                        match field.take() {
                            Some(Field::Loc) => entry.loc = text.to_string(),
                            Some(Field::Lastmod) if !text.is_empty() => {
                                entry.lastmod = Some(text.to_string())
                            }
                            _ => {}
                        }
                    }
                    2 if in_entry => {
                        in_entry = false;
                        if !entry.loc.is_empty() {
                            if entries.len() == limits.max_urls {
                                truncated = true;
                                break;
                            }
                            entries.push(std::mem::replace(
                                &mut entry,
                                SitemapEntry {
                                    loc: String::new(),
                                    lastmod: None,
                                },
                            ));
                        }
                    }
                    _ => {}
                }
                depth = depth.saturating_sub(1);
            }
            Event::Eof => break,
            _ => {}
        }
    }
    let format = format.ok_or_else(|| SitemapError::Xml("no root element".to_string()))?;
    let (urls, sitemaps) = match format {
        SitemapFormat::Index => (Vec::new(), entries),
        _ => (entries, Vec::new()),
    };
    Ok(Sitemap {
        format,
        urls,
        sitemaps,
        truncated,
    })
}

fn root_format(name: &str) -> Result<SitemapFormat, SitemapError> {
    match name {
        "urlset" => Ok(SitemapFormat::UrlSet),
        "sitemapindex" => Ok(SitemapFormat::Index),
        other => Err(SitemapError::NotASitemap(other.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use std::io::Write;

    use flate2::Compression;
    use flate2::write::GzEncoder;

    use super::*;

    const URLSET: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9"
        xmlns:image="http://www.google.com/schemas/sitemap-image/1.1"
        xmlns:xhtml="http://www.w3.org/1999/xhtml">
  <url>
    <loc>https://www.example.com/</loc>
    <lastmod>2024-11-02T10:15:00+00:00</lastmod>
    <changefreq>daily</changefreq>
    <priority>1.0</priority>
  </url>
  <url>
    <loc>
      https://www.example.com/catalog?item=12&amp;desc=vacation_hawaii
    </loc>
    <image:image>
      <image:loc>https://cdn.example.com/photo.jpg</image:loc>
    </image:image>
    <xhtml:link rel="alternate" hreflang="de" href="https://www.example.com/de/"/>
  </url>
  <url>
    <loc><![CDATA[https://www.example.com/cdata?a=1&b=2]]></loc>
    <lastmod>2024-10-01</lastmod>
  </url>
  <url><loc>https://www.example.com/caf&#xE9;</loc></url>
  <!-- an entry without loc is skipped -->
  <url><lastmod>2024-01-01</lastmod></url>
</urlset>
"#;

    const INDEX: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<sitemapindex xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">
  <sitemap>
    <loc>https://www.example.com/sitemap-posts.xml.gz</loc>
    <lastmod>2024-11-01T18:23:17+00:00</lastmod>
  </sitemap>
  <sitemap>
    <loc>https://www.example.com/sitemap-pages.xml</loc>
  </sitemap>
</sitemapindex>"#;

    fn gzip(data: &[u8]) -> Vec<u8> {
        let mut encoder = GzEncoder::new(Vec::new(), Compression::default());
        encoder.write_all(data).unwrap();
        encoder.finish().unwrap()
    }

    fn locs(entries: &[SitemapEntry]) -> Vec<&str> {
        entries.iter().map(|e| e.loc.as_str()).collect()
    }

    #[test]
    fn urlset() {
        let sitemap = parse_sitemap(URLSET.as_bytes()).unwrap();
        assert_eq!(sitemap.format, SitemapFormat::UrlSet);
        assert_eq!(
            locs(&sitemap.urls),
            [
                "https://www.example.com/",
                "https://www.example.com/catalog?item=12&desc=vacation_hawaii",
                "https://www.example.com/cdata?a=1&b=2",
                "https://www.example.com/café",
            ]
        );
        assert_eq!(
            sitemap.urls[0].lastmod.as_deref(),
            Some("2024-11-02T10:15:00+00:00")
        );
        assert_eq!(sitemap.urls[1].lastmod, None);
        assert_eq!(sitemap.urls[2].lastmod.as_deref(), Some("2024-10-01"));
        assert!(sitemap.sitemaps.is_empty());
        assert!(!sitemap.truncated);
    }

    #[test]
    fn sitemap_index() {
        let sitemap = parse_sitemap(INDEX.as_bytes()).unwrap();
        assert_eq!(sitemap.format, SitemapFormat::Index);
        assert!(sitemap.urls.is_empty());
        assert_eq!(
            locs(&sitemap.sitemaps),
            [
                "https://www.example.com/sitemap-posts.xml.gz",
                "https://www.example.com/sitemap-pages.xml"
            ]
        );
        assert_eq!(
            sitemap.sitemaps[0].lastmod.as_deref(),
            Some("2024-11-01T18:23:17+00:00")
        );
    }

    #[test]
    fn gzip_detected_by_magic_bytes() {
        let plain = parse_sitemap(URLSET.as_bytes()).unwrap();
        assert_eq!(parse_sitemap(&gzip(URLSET.as_bytes())).unwrap(), plain);
        let index = parse_sitemap(&gzip(INDEX.as_bytes())).unwrap();
        assert_eq!(index.format, SitemapFormat::Index);
        let text = parse_sitemap(&gzip(b"https://a.example/\n")).unwrap();
        assert_eq!(locs(&text.urls), ["https://a.example/"]);
        assert!(matches!(
            parse_sitemap(&[0x1f, 0x8b, 0x08, 0x00, 0x01]),
            Err(SitemapError::Gzip(_))
        ));
    }

    #[test]
    fn text_sitemap() {
        let body = "\u{feff}https://www.example.com/a\r\n\n  https://www.example.com/b  \n# comment\nftp://x.example/\nnot a url\nHTTP://www.example.com/c\n";
        let sitemap = parse_sitemap(body.as_bytes()).unwrap();
        assert_eq!(sitemap.format, SitemapFormat::Text);
        assert_eq!(
            locs(&sitemap.urls),
            [
                "https://www.example.com/a",
                "https://www.example.com/b",
                "HTTP://www.example.com/c"
            ]
        );
    }

    #[test]
    fn url_limit_truncates() {
        let mut xml = String::from("<urlset>");
        for i in 0..10 {
            xml.push_str(&format!("<url><loc>https://e.example/{i}</loc></url>"));
        }
        xml.push_str("</urlset>");
        let limits = SitemapLimits {
            max_urls: 4,
            ..SitemapLimits::default()
        };
        let sitemap = parse_sitemap_with(xml.as_bytes(), &limits).unwrap();
        assert_eq!(sitemap.urls.len(), 4);
        assert!(sitemap.truncated);
        let text: String = (0..10)
            .map(|i| format!("https://e.example/{i}\n"))
            .collect();
        let sitemap = parse_sitemap_with(text.as_bytes(), &limits).unwrap();
        assert_eq!(sitemap.urls.len(), 4);
        assert!(sitemap.truncated);
    }

    #[test]
    fn full_size_sitemap_of_50000_urls() {
        let mut xml = String::from(
            r#"<?xml version="1.0" encoding="UTF-8"?><urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">"#,
        );
        for i in 0..50_001 {
            xml.push_str(&format!(
                "<url><loc>https://www.example.com/p/{i}</loc><lastmod>2024-01-01</lastmod></url>\n"
            ));
        }
        xml.push_str("</urlset>");
        let sitemap = parse_sitemap(&gzip(xml.as_bytes())).unwrap();
        assert_eq!(sitemap.urls.len(), 50_000);
        assert!(sitemap.truncated);
        assert_eq!(sitemap.urls[49_999].loc, "https://www.example.com/p/49999");
    }

    #[test]
    fn byte_limit_and_gzip_bomb() {
        let limits = SitemapLimits {
            max_bytes: 1000,
            ..SitemapLimits::default()
        };
        let big = "https://e.example/aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n".repeat(100);
        assert!(matches!(
            parse_sitemap_with(big.as_bytes(), &limits),
            Err(SitemapError::TooLarge { limit: 1000 })
        ));
        // 10 MB of zeros compress to ~10 KB: decompression stops at the limit
        let bomb = gzip(&vec![b' '; 10 * 1024 * 1024]);
        assert!(bomb.len() < 100 * 1024);
        assert!(matches!(
            parse_sitemap_with(&bomb, &limits),
            Err(SitemapError::TooLarge { .. })
        ));
        let exact = "x".repeat(1000);
        assert!(parse_sitemap_with(exact.as_bytes(), &limits).is_ok());
    }

    #[test]
    fn not_a_sitemap_and_malformed() {
        assert!(matches!(
            parse_sitemap(b"<!DOCTYPE html><html><body>Not found</body></html>"),
            Err(SitemapError::NotASitemap(root)) if root == "html"
        ));
        assert!(matches!(
            parse_sitemap(b"<urlset><url><loc>https://a/</lo"),
            Err(SitemapError::Xml(_))
        ));
        let partial = parse_sitemap(
            b"<urlset><url><loc>https://a.example/</loc></url><url><loc>x</wrong></url></urlset>",
        )
        .unwrap();
        assert_eq!(locs(&partial.urls), ["https://a.example/"]);
        assert!(partial.truncated);
        let empty = parse_sitemap(b"<urlset/>").unwrap();
        assert_eq!(empty.format, SitemapFormat::UrlSet);
        assert!(empty.urls.is_empty());
    }
}
