//! Answers of [`HostileHost`](crate::hostile::HostileHost) that are too large to hold in
//! memory (a gzip or brotli bomb, an endless chunked body, a 50 MB sitemap, a 10 MB
//! robots.txt), generated while they are sent, and fixed raw answers (any head, any bytes:
//! lying `Content-Length`, 10,000 header lines, redirects to other schemes, invalid UTF-8).
//!
//! The streams stop when the client closes the connection, so a test process only pays for
//! what the crawler under test reads.

use std::io::{self, Write};

use tokio::io::AsyncWriteExt;

/// An answer generated while it is sent.
#[derive(Debug, Clone)]
pub enum Stream {
    /// 200 text/html, `Content-Encoding: gzip`, no `Content-Length` (ends at close): zeros
    /// compressed at the best level (about 1:1000, the most deflate gives) that decode to
    /// `decoded` bytes.
    GzipBomb { decoded: u64 },
    /// The same with `Content-Encoding: br` (brotli compresses zeros far better).
    BrotliBomb { decoded: u64 },
    /// 200 text/html, `Transfer-Encoding: chunked`, 64 KiB chunks of HTML that never end.
    EndlessChunked,
    /// 200 application/xml with `Content-Length: bytes`: a urlset of `first`, then `repeat`
    /// over and over, padded with whitespace to exactly `bytes`.
    Sitemap {
        bytes: u64,
        first: Vec<String>,
        repeat: String,
    },
    /// 200 text/plain with `Content-Length: bytes`: `before` bytes of comment lines, then
    /// `rules`, then comment lines up to `bytes`.
    Robots {
        bytes: u64,
        before: u64,
        rules: String,
    },
}

/// Bytes handed to the socket per write.
const PIECE: usize = 64 * 1024;

/// Sends `stream` (head and body) until it ends or the client goes away.
pub(crate) async fn send(
    socket: &mut (impl AsyncWriteExt + Unpin),
    stream: Stream,
) -> io::Result<()> {
    match stream {
        Stream::GzipBomb { decoded } => {
            let encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
            send_compressed(socket, "gzip", encoder, decoded).await
        }
        Stream::BrotliBomb { decoded } => {
            let encoder = brotli::CompressorWriter::new(Vec::new(), 4096, 9, 22);
            send_compressed(socket, "br", encoder, decoded).await
        }
        Stream::EndlessChunked => {
            socket
                .write_all(
                    b"HTTP/1.1 200 OK\r\nContent-Type: text/html\r\n\
                      Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n",
                )
                .await?;
            let line = "<p>endless chunked body, this paragraph repeats forever</p>\n";
            let text = line.repeat(PIECE / line.len());
            let chunk = format!("{:x}\r\n{text}\r\n", text.len());
            loop {
                socket.write_all(chunk.as_bytes()).await?;
            }
        }
        Stream::Sitemap {
            bytes,
            first,
            repeat,
        } => {
            socket.write_all(&ok_head("application/xml", bytes)).await?;
            let open = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\
                        <urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n";
            let close = "</urlset>\n";
            let mut sent = 0u64;
            let mut piece = String::from(open);
            for loc in first.iter().chain(std::iter::repeat(&repeat)) {
                let entry = format!("<url><loc>{loc}</loc></url>\n");
                if sent + (piece.len() + entry.len() + close.len()) as u64 > bytes {
                    break;
                }
                piece.push_str(&entry);
                if piece.len() >= PIECE {
                    socket.write_all(piece.as_bytes()).await?;
                    sent += piece.len() as u64;
                    piece.clear();
                }
            }
            // Whitespace up to the announced length (allowed between elements).
            let padding = bytes - sent - (piece.len() + close.len()) as u64;
            socket.write_all(piece.as_bytes()).await?;
            send_filler(socket, padding, b' ').await?;
            socket.write_all(close.as_bytes()).await
        }
        Stream::Robots {
            bytes,
            before,
            rules,
        } => {
            socket.write_all(&ok_head("text/plain", bytes)).await?;
            send_comment_lines(socket, before).await?;
            socket.write_all(rules.as_bytes()).await?;
            let after = bytes.saturating_sub(before + rules.len() as u64);
            send_comment_lines(socket, after).await
        }
    }
}

/// A 200 head with `Content-Type` and `Content-Length`.
fn ok_head(content_type: &str, length: u64) -> Vec<u8> {
    format!(
        "HTTP/1.1 200 OK\r\nContent-Type: {content_type}\r\nContent-Length: {length}\r\n\
         Connection: close\r\n\r\n"
    )
    .into_bytes()
}

/// Sends a compressed body of `decoded` zero bytes, compressing while sending.
async fn send_compressed<W: Write + Encoded>(
    socket: &mut (impl AsyncWriteExt + Unpin),
    coding: &str,
    mut encoder: W,
    decoded: u64,
) -> io::Result<()> {
    let head = format!(
        "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Encoding: {coding}\r\n\
         Connection: close\r\n\r\n"
    );
    socket.write_all(head.as_bytes()).await?;
    let zeros = vec![0u8; 1024 * 1024];
    let mut left = decoded;
    while left > 0 {
        let n = left.min(zeros.len() as u64) as usize;
        encoder.write_all(&zeros[..n])?;
        left -= n as u64;
        let out = encoder.output();
        if !out.is_empty() {
            socket.write_all(out).await?;
            out.clear();
        }
    }
    let rest = encoder.finish_output()?;
    socket.write_all(&rest).await
}

/// A compressing writer whose output so far can be taken.
trait Encoded {
    fn output(&mut self) -> &mut Vec<u8>;
    fn finish_output(self) -> io::Result<Vec<u8>>;
}

impl Encoded for flate2::write::GzEncoder<Vec<u8>> {
    fn output(&mut self) -> &mut Vec<u8> {
        self.get_mut()
    }
    fn finish_output(self) -> io::Result<Vec<u8>> {
        self.finish()
    }
}

impl Encoded for brotli::CompressorWriter<Vec<u8>> {
    fn output(&mut self) -> &mut Vec<u8> {
        self.get_mut()
    }
    fn finish_output(self) -> io::Result<Vec<u8>> {
        Ok(self.into_inner())
    }
}

async fn send_filler(
    socket: &mut (impl AsyncWriteExt + Unpin),
    bytes: u64,
    byte: u8,
) -> io::Result<()> {
    let piece = vec![byte; PIECE];
    let mut left = bytes;
    while left > 0 {
        let n = left.min(PIECE as u64) as usize;
        socket.write_all(&piece[..n]).await?;
        left -= n as u64;
    }
    Ok(())
}

/// Exactly `bytes` of robots.txt comment lines.
async fn send_comment_lines(
    socket: &mut (impl AsyncWriteExt + Unpin),
    bytes: u64,
) -> io::Result<()> {
    let line = format!("#{}\n", "c".repeat(62));
    let piece = line.repeat(PIECE / line.len());
    let mut left = bytes;
    while left >= piece.len() as u64 {
        socket.write_all(piece.as_bytes()).await?;
        left -= piece.len() as u64;
    }
    if left > 0 {
        let mut tail = vec![b'c'; left as usize];
        tail[0] = b'#';
        if let Some(last) = tail.last_mut() {
            *last = b'\n';
        }
        socket.write_all(&tail).await?;
    }
    Ok(())
}

/// A raw answer: `status` line, then `headers` (each `Name: value`), `Connection: close`, and
/// `body` as bytes (no `Content-Length` is added: put one in `headers` to announce one).
pub fn raw_answer(status: &str, headers: &[String], body: &[u8]) -> Vec<u8> {
    let mut answer = format!("HTTP/1.1 {status}\r\n").into_bytes();
    for header in headers {
        answer.extend_from_slice(header.as_bytes());
        answer.extend_from_slice(b"\r\n");
    }
    answer.extend_from_slice(b"Connection: close\r\n\r\n");
    answer.extend_from_slice(body);
    answer
}

/// A 302 to `location` (any scheme).
pub fn redirect_to(location: &str) -> Vec<u8> {
    raw_answer(
        "302 Found",
        &[format!("Location: {location}"), "Content-Length: 0".into()],
        b"",
    )
}

/// An empty answer of `status` (e.g. `"503 Service Unavailable"`).
pub fn empty_status(status: &str) -> Vec<u8> {
    raw_answer(status, &["Content-Length: 0".into()], b"")
}

/// 200 text/html whose `Content-Length` announces `announced` bytes of `body` (smaller than
/// the body: the rest is sent anyway).
pub fn lying_length(announced: usize, body: &[u8]) -> Vec<u8> {
    raw_answer(
        "200 OK",
        &[
            "Content-Type: text/html; charset=utf-8".into(),
            format!("Content-Length: {announced}"),
        ],
        body,
    )
}

/// 200 text/html with `count` extra header lines `X-Header-N: value`.
pub fn many_headers(count: usize, body: &str) -> Vec<u8> {
    let mut headers: Vec<String> = (0..count).map(|n| format!("X-Header-{n}: v")).collect();
    headers.push("Content-Type: text/html".into());
    headers.push(format!("Content-Length: {}", body.len()));
    raw_answer("200 OK", &headers, body.as_bytes())
}
