//! [`CommitCutter`]: a TCP proxy in front of the test server that loses one COMMIT's answer,
//! the case a client cannot settle by itself: its transaction was committed, and it only sees
//! its connection break.

// Each test crate that includes it uses a part.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Passes every connection through to the server; once [`armed`](CommitCutter::arm), the next
/// COMMIT a client sends (or the statement [`arm_answer_to`](CommitCutter::arm_answer_to)
/// names) goes to the server, and the server's answer is dropped with both connections.
pub struct CommitCutter {
    url: String,
    armed: Armed,
    cuts: Arc<AtomicUsize>,
}

/// What to cut once armed.
enum Cut {
    /// The answer of the next COMMIT on a connection that sent this text before it.
    CommitAfter(Vec<u8>),
    /// The answer of the next message holding this text (a statement run on its own, which
    /// commits as it runs).
    AnswerTo(Vec<u8>),
}

type Armed = Arc<Mutex<Option<Cut>>>;

impl CommitCutter {
    /// Listens on a free port of 127.0.0.1 in front of the server at `server_url`
    /// (`postgres://user@127.0.0.1:PORT/database`).
    pub fn start(server_url: &str) -> CommitCutter {
        let (head, tail) = server_url
            .rsplit_once(':')
            .expect("a server URL with a port");
        let (port, database) = tail.split_once('/').expect("a server URL with a database");
        let host = head.rsplit('@').next().expect("a host");
        let upstream = format!("{host}:{port}");
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind the proxy");
        let proxy_port = listener.local_addr().expect("proxy address").port();
        let cutter = CommitCutter {
            url: format!(
                "{head_without_port}:{proxy_port}/{database}",
                head_without_port = head
            ),
            armed: Arc::default(),
            cuts: Arc::default(),
        };
        let (armed, cuts) = (cutter.armed.clone(), cutter.cuts.clone());
        std::thread::spawn(move || {
            for client in listener.incoming() {
                let Ok(client) = client else { return };
                let Ok(server) = TcpStream::connect(&upstream) else {
                    continue;
                };
                relay(client, server, armed.clone(), cuts.clone());
            }
        });
        cutter
    }

    /// The URL to connect through the proxy.
    pub fn url(&self) -> &str {
        &self.url
    }

    /// Cuts the next COMMIT's answer.
    pub fn arm(&self) {
        self.arm_after("");
    }

    /// Cuts the answer of the next COMMIT on a connection that sent `text` before it (a
    /// statement first prepared on that connection: its SQL).
    pub fn arm_after(&self, text: &str) {
        *self.armed.lock().expect("armed") = Some(Cut::CommitAfter(text.as_bytes().to_vec()));
    }

    /// Cuts the answer of the next message that holds `text` (a statement outside a
    /// transaction, first prepared on its connection: its SQL), which the server commits.
    pub fn arm_answer_to(&self, text: &str) {
        *self.armed.lock().expect("armed") = Some(Cut::AnswerTo(text.as_bytes().to_vec()));
    }

    /// Answers cut so far.
    pub fn cuts(&self) -> usize {
        self.cuts.load(Ordering::SeqCst)
    }
}

fn contains(chunk: &[u8], text: &[u8]) -> bool {
    text.is_empty() || chunk.windows(text.len()).any(|w| w == text)
}

fn relay(client: TcpStream, server: TcpStream, armed: Armed, cuts: Arc<AtomicUsize>) {
    let cutting = Arc::new(AtomicBool::new(false));
    let (mut from_client, mut to_server) = (
        client.try_clone().expect("clone"),
        server.try_clone().expect("clone"),
    );
    let cut_next = cutting.clone();
    std::thread::spawn(move || {
        let mut buffer = vec![0u8; 64 * 1024];
        let mut marked = false;
        while let Ok(read) = from_client.read(&mut buffer) {
            if read == 0 {
                break;
            }
            let chunk = &buffer[..read];
            let mut armed = armed.lock().expect("armed");
            let cut = match armed.as_ref() {
                Some(Cut::CommitAfter(text)) => {
                    marked |= contains(chunk, text);
                    marked && contains(chunk, b"COMMIT")
                }
                Some(Cut::AnswerTo(text)) => contains(chunk, text),
                None => false,
            };
            if cut {
                *armed = None;
                cut_next.store(true, Ordering::SeqCst);
            }
            drop(armed);
            if to_server.write_all(chunk).is_err() {
                break;
            }
        }
        let _ = to_server.shutdown(Shutdown::Write);
    });
    let (mut from_server, mut to_client) = (server, client);
    std::thread::spawn(move || {
        let mut buffer = vec![0u8; 64 * 1024];
        while let Ok(read) = from_server.read(&mut buffer) {
            if read == 0 {
                break;
            }
            if cutting.load(Ordering::SeqCst) {
                // The answer to cut: dropped, and the connection with it.
                cuts.fetch_add(1, Ordering::SeqCst);
                break;
            }
            if to_client.write_all(&buffer[..read]).is_err() {
                break;
            }
        }
        let _ = to_client.shutdown(Shutdown::Both);
        let _ = from_server.shutdown(Shutdown::Both);
    });
}
