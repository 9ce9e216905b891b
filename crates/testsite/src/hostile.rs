//! Broken and hostile hosts on 127.0.0.1, next to a healthy one, for the tests that a crawl
//! always ends: a port that refuses connections, a listener that accepts and never answers,
//! a plain-HTTP port to be asked for TLS, a body that drips one byte at a time, a header
//! section of megabytes, a body cut short, a server that dies mid-crawl (and is started
//! again on its port), a page of a huge number of links.
//!
//! The HTTP hosts here speak HTTP/1.1 by hand over tokio sockets (one request per
//! connection, `Connection: close`), because the point is to misbehave in ways a framework
//! does not allow. Every request is recorded with when it started and when its connection
//! was done, so tests can check that a client let go in time.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::JoinHandle;

use crate::hostile_streams::{Stream, send};
use crate::html::{esc, paragraphs};
use crate::text::prose_for;

/// Longest request head read (larger heads are answered when this much arrived).
const MAX_REQUEST_HEAD: usize = 16 * 1024;

/// A port on 127.0.0.1 where nothing listens (bound, then closed: connections are refused).
pub fn refused_port() -> io::Result<u16> {
    let listener = std::net::TcpListener::bind((Ipv4Addr::LOCALHOST, 0))?;
    let port = listener.local_addr()?.port();
    drop(listener);
    Ok(port)
}

/// Accepts connections and never reads or answers; holds them until dropped.
pub struct BlackHole {
    addr: SocketAddr,
    accepted: Arc<Mutex<u32>>,
    task: JoinHandle<()>,
}

impl BlackHole {
    /// Starts on a random port of 127.0.0.1. Must be called inside a tokio runtime.
    pub async fn start() -> io::Result<BlackHole> {
        let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, 0)).await?;
        let addr = listener.local_addr()?;
        let accepted = Arc::new(Mutex::new(0));
        let count = Arc::clone(&accepted);
        let task = tokio::spawn(async move {
            let mut held = Vec::new();
            while let Ok((socket, _)) = listener.accept().await {
                *locked(&count) += 1;
                held.push(socket);
            }
        });
        Ok(BlackHole {
            addr,
            accepted,
            task,
        })
    }

    /// `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// Connections accepted so far.
    pub fn accepted(&self) -> u32 {
        *locked(&self.accepted)
    }
}

impl Drop for BlackHole {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// What a [`HostileHost`] path serves.
#[derive(Debug, Clone)]
pub enum Behaviour {
    /// 200 text/html.
    Html(String),
    /// 404.
    NotFound,
    /// 200 with `Content-Length: length`, the body sent one byte per `interval`.
    Drip { length: u64, interval: Duration },
    /// A 200 status line, then `bytes` of header lines, `chunk` bytes per `interval`.
    HugeHeader {
        bytes: usize,
        chunk: usize,
        interval: Duration,
    },
    /// 200 text/html announcing `Content-Length: announced`, then only `body` (shorter), then
    /// the connection is closed: a body cut short.
    CutShort { announced: u64, body: String },
    /// These exact bytes (status line, head and body), then the connection is closed (see
    /// [`crate::hostile_streams::raw_answer`]).
    Raw(Vec<u8>),
    /// An answer generated while it is sent (bombs, endless and huge bodies).
    Stream(Stream),
    /// The server dies on this request: no answer, its listener closed, every connection
    /// dropped (see [`HostileHost::stopped`]); the port refuses connections until a new
    /// host is started on it ([`HostileHost::start_on`]).
    Die,
}

/// One request a [`HostileHost`] received.
#[derive(Debug, Clone)]
pub struct Served {
    pub path: String,
    /// When the request head was read.
    pub started: Instant,
    /// When the answer was complete or the client had closed the connection.
    pub ended: Instant,
}

impl Served {
    /// How long the connection was held for this request.
    pub fn held(&self) -> Duration {
        self.ended.duration_since(self.started)
    }
}

type Router = Arc<dyn Fn(&str) -> Behaviour + Send + Sync>;

/// An HTTP/1.1 host on 127.0.0.1 whose paths behave as a function of the path says.
pub struct HostileHost {
    addr: SocketAddr,
    served: Arc<Mutex<Vec<Served>>>,
    stopped: tokio::sync::watch::Receiver<bool>,
    task: JoinHandle<()>,
}

impl HostileHost {
    /// Starts on a random port of 127.0.0.1. Must be called inside a tokio runtime.
    pub async fn start(
        route: impl Fn(&str) -> Behaviour + Send + Sync + 'static,
    ) -> io::Result<HostileHost> {
        Self::start_on(0, route).await
    }

    /// Starts on `port` of 127.0.0.1 (0: a random one), e.g. again on the port of a host
    /// that died. Must be called inside a tokio runtime.
    pub async fn start_on(
        port: u16,
        route: impl Fn(&str) -> Behaviour + Send + Sync + 'static,
    ) -> io::Result<HostileHost> {
        Self::start_at(Ipv4Addr::LOCALHOST, port, route).await
    }

    /// Starts on `address:port` (port 0: a random one), e.g. on 127.0.0.2 to play a host
    /// other than 127.0.0.1. Must be called inside a tokio runtime.
    pub async fn start_at(
        address: Ipv4Addr,
        port: u16,
        route: impl Fn(&str) -> Behaviour + Send + Sync + 'static,
    ) -> io::Result<HostileHost> {
        let socket = tokio::net::TcpSocket::new_v4()?;
        // The port of a dead host has connections in TIME_WAIT.
        socket.set_reuseaddr(true)?;
        socket.bind(SocketAddr::from((address, port)))?;
        let listener = socket.listen(128)?;
        let addr = listener.local_addr()?;
        let served = Arc::new(Mutex::new(Vec::new()));
        let route: Router = Arc::new(route);
        let log = Arc::clone(&served);
        let (stop, stopped) = tokio::sync::watch::channel(false);
        let stop = Arc::new(stop);
        let task = tokio::spawn(async move {
            let mut stop_seen = stop.subscribe();
            // Dropped with this task: a dying host takes its connections with it.
            let mut connections = tokio::task::JoinSet::new();
            loop {
                let accepted = tokio::select! {
                    accepted = listener.accept() => accepted,
                    _ = stop_seen.wait_for(|stopped| *stopped) => break,
                };
                let Ok((socket, _)) = accepted else { break };
                while connections.try_join_next().is_some() {}
                let route = Arc::clone(&route);
                let log = Arc::clone(&log);
                let stop = Arc::clone(&stop);
                connections.spawn(async move {
                    if let Some(record) = serve(socket, &route, &stop).await {
                        locked(&log).push(record);
                    }
                });
            }
        });
        Ok(HostileHost {
            addr,
            served,
            stopped,
            task,
        })
    }

    /// The port listened on.
    pub fn port(&self) -> u16 {
        self.addr.port()
    }

    /// Returns once the host died ([`Behaviour::Die`]).
    pub async fn stopped(&self) {
        let mut stopped = self.stopped.clone();
        let _ = stopped.wait_for(|stopped| *stopped).await;
    }

    /// A healthy host of `pages` distinct HTML pages: `/` links `/page/1` … `/page/9`, and
    /// `/page/k` links `/page/10k` … `/page/10k+9` (those that exist), so every page is
    /// reached; robots.txt and everything else is 404.
    pub async fn pages(pages: usize) -> io::Result<HostileHost> {
        Self::start(move |path| page_behaviour(path, pages)).await
    }

    /// `http://127.0.0.1:PORT/`.
    pub fn url(&self) -> String {
        format!("http://{}/", self.addr)
    }

    /// `https://127.0.0.1:PORT/`: TLS asked of this plain-HTTP port.
    pub fn https_url(&self) -> String {
        format!("https://{}/", self.addr)
    }

    /// `127.0.0.1:PORT`.
    pub fn authority(&self) -> String {
        self.addr.to_string()
    }

    /// Every request answered so far.
    pub fn served(&self) -> Vec<Served> {
        locked(&self.served).clone()
    }
}

impl Drop for HostileHost {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// The paths of [`HostileHost::pages`]: `/` and `/page/1` … `/page/{pages-1}`.
pub fn page_paths(pages: usize) -> Vec<String> {
    std::iter::once("/".to_string())
        .chain((1..pages).map(|k| format!("/page/{k}")))
        .collect()
}

/// What [`HostileHost::pages`] serves at `path`.
pub fn page_behaviour(path: &str, pages: usize) -> Behaviour {
    let number = if path == "/" {
        Some(0)
    } else {
        path.strip_prefix("/page/")
            .and_then(|k| k.parse::<usize>().ok())
            .filter(|&k| k > 0 && k < pages)
    };
    match number {
        Some(k) => Behaviour::Html(page_html(k, pages)),
        None => Behaviour::NotFound,
    }
}

/// Page `k`: its own prose (so no two pages are near duplicates) and links to its children.
pub fn page_html(k: usize, pages: usize) -> String {
    let links: String = (10 * k..10 * k + 10)
        .filter(|&child| child > 0 && child < pages)
        .map(|child| format!("<li><a href=\"/page/{child}\">page {child}</a></li>\n"))
        .collect();
    let title = format!("Healthy page {k}");
    format!(
        "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>{}</title></head>\
         <body><main><h1>{}</h1>{}</main><ul>{links}</ul></body></html>",
        esc(&title),
        esc(&title),
        paragraphs(&prose_for(&format!("healthy-page-{k}"), 220)),
    )
}

/// A page of `count` distinct same-host links (`/flood/0` … ), about 30 bytes each.
pub fn link_flood_html(count: usize) -> String {
    let mut html = String::with_capacity(count * 32 + 512);
    html.push_str(
        "<!doctype html><html lang=\"en\"><head><title>Link flood</title></head><body><main>",
    );
    html.push_str(&paragraphs(&prose_for("link-flood", 200)));
    html.push_str("</main>");
    for i in 0..count {
        html.push_str(&format!("<a href=\"/flood/{i}\">{i}</a>\n"));
    }
    html.push_str("</body></html>");
    html
}

/// Reads one request head and answers it; `None` if no request came, or the host died on it.
async fn serve(
    mut socket: TcpStream,
    route: &Router,
    stop: &tokio::sync::watch::Sender<bool>,
) -> Option<Served> {
    let path = read_request_path(&mut socket).await?;
    let started = Instant::now();
    let behaviour = route(&path);
    if matches!(behaviour, Behaviour::Die) {
        stop.send_replace(true);
        return None;
    }
    {
        let (mut reader, mut writer) = socket.split();
        // The record ends when the answer is complete or the client closes, whichever first.
        tokio::select! {
            _ = answer(&mut writer, behaviour) => {}
            () = closed_by_peer(&mut reader) => {}
        }
    }
    let _ = socket.shutdown().await;
    Some(Served {
        path,
        started,
        ended: Instant::now(),
    })
}

async fn read_request_path(socket: &mut TcpStream) -> Option<String> {
    let mut head = Vec::new();
    let mut buf = [0u8; 2048];
    while !head.windows(4).any(|w| w == b"\r\n\r\n") && head.len() < MAX_REQUEST_HEAD {
        let n = socket.read(&mut buf).await.ok()?;
        if n == 0 {
            return None;
        }
        head.extend_from_slice(&buf[..n]);
        if !head[0].is_ascii_uppercase() {
            // Not HTTP (e.g. a TLS ClientHello): answer as plain HTTP servers do, and close.
            let _ = socket
                .write_all(
                    b"HTTP/1.1 400 Bad Request\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
                )
                .await;
            return None;
        }
    }
    let line = head.split(|&b| b == b'\n').next()?;
    let line = String::from_utf8_lossy(line);
    let mut parts = line.split_whitespace();
    let _method = parts.next()?;
    parts.next().map(str::to_string)
}

/// Returns when the client closes its side (or the connection breaks).
async fn closed_by_peer(reader: &mut (impl AsyncReadExt + Unpin)) {
    let mut buf = [0u8; 512];
    while let Ok(n) = reader.read(&mut buf).await {
        if n == 0 {
            return;
        }
    }
}

async fn answer(socket: &mut (impl AsyncWriteExt + Unpin), behaviour: Behaviour) -> io::Result<()> {
    match behaviour {
        Behaviour::Html(body) => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
                 Content-Length: {}\r\nConnection: close\r\n\r\n",
                body.len()
            );
            socket.write_all(head.as_bytes()).await?;
            socket.write_all(body.as_bytes()).await
        }
        Behaviour::NotFound => {
            socket
                .write_all(
                    b"HTTP/1.1 404 Not Found\r\nContent-Type: text/plain\r\n\
                      Content-Length: 9\r\nConnection: close\r\n\r\nnot found",
                )
                .await
        }
        Behaviour::Drip { length, interval } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html\r\nContent-Length: {length}\r\n\
                 Connection: close\r\n\r\n"
            );
            socket.write_all(head.as_bytes()).await?;
            for _ in 0..length {
                socket.write_all(b"x").await?;
                socket.flush().await?;
                tokio::time::sleep(interval).await;
            }
            Ok(())
        }
        Behaviour::HugeHeader {
            bytes,
            chunk,
            interval,
        } => {
            socket.write_all(b"HTTP/1.1 200 OK\r\n").await?;
            let line = format!(
                "X-Filler: {}\r\n",
                "f".repeat(chunk.saturating_sub(12).max(1))
            );
            let mut sent = 0;
            while sent < bytes {
                socket.write_all(line.as_bytes()).await?;
                sent += line.len();
                tokio::time::sleep(interval).await;
            }
            socket
                .write_all(b"Content-Length: 2\r\nConnection: close\r\n\r\nok")
                .await
        }
        Behaviour::CutShort { announced, body } => {
            let head = format!(
                "HTTP/1.1 200 OK\r\nContent-Type: text/html; charset=utf-8\r\n\
                 Content-Length: {announced}\r\nConnection: close\r\n\r\n"
            );
            socket.write_all(head.as_bytes()).await?;
            socket.write_all(body.as_bytes()).await?;
            // The caller closes the connection: `announced` is never reached.
            socket.flush().await
        }
        Behaviour::Raw(bytes) => {
            socket.write_all(&bytes).await?;
            socket.flush().await
        }
        Behaviour::Stream(stream) => send(socket, stream).await,
        // Handled in `serve`: no answer at all.
        Behaviour::Die => Ok(()),
    }
}

fn locked<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while holding the lock cannot leave these values inconsistent.
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}
