//! Headless Chromium (Debian's `chromium`, installed by `scripts/install-test-tools`) for the
//! dashboard tests: the flags every run needs, waiting for a server to listen, and a tab driven
//! over the DevTools protocol, which answers what the rendered page shows (text, computed
//! style, layout) and takes screenshots of it.
//!
//! The protocol runs over a pipe (`--remote-debugging-pipe`: Chromium reads commands on fd 3
//! and writes answers on fd 4, each a JSON message ended by a NUL byte), so no port and no
//! WebSocket client are needed.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

/// The flags of every headless run here (the test runs as root in a container: no sandbox).
pub const CHROMIUM_FLAGS: [&str; 3] = ["--headless", "--no-sandbox", "--disable-gpu"];

/// How long one DevTools command may take.
const COMMAND_TIMEOUT: Duration = Duration::from_secs(30);

/// A loopback address nobody listens on yet.
pub fn free_address() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.local_addr().expect("address")
}

/// Waits until `address` accepts connections; `child` (the server) must not exit meanwhile.
pub fn wait_for(address: SocketAddr, child: &mut Child) {
    let deadline = Instant::now() + Duration::from_secs(30);
    while TcpStream::connect(address).is_err() {
        assert!(child.try_wait().expect("child").is_none(), "server exited");
        assert!(Instant::now() < deadline, "{address} never answered");
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// One Chromium with one tab, killed on drop.
pub struct Tab {
    chromium: Child,
    commands: std::io::PipeWriter,
    messages: Receiver<Value>,
    next_id: u64,
    session: String,
    _profile: tempfile::TempDir,
}

impl Tab {
    /// Opens `url` in a viewport of `width` × `height` CSS pixels.
    pub fn open(url: &str, width: u32, height: u32) -> Tab {
        let profile = tempfile::tempdir().expect("profile dir");
        let (browser_reads, commands) = std::io::pipe().expect("pipe");
        let (answers, browser_writes) = std::io::pipe().expect("pipe");
        let (read_fd, write_fd) = (browser_reads.as_raw_fd(), browser_writes.as_raw_fd());
        let mut command = Command::new("chromium");
        command
            .args(CHROMIUM_FLAGS)
            .arg("--remote-debugging-pipe")
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: only async-signal-safe calls (fcntl, dup2) between fork and exec. The ends
        // are first copied above fd 9 so that moving one onto 3 or 4 cannot overwrite the
        // other; dup2 clears close-on-exec on 3 and 4.
        unsafe {
            command.pre_exec(move || {
                let read_copy = libc::fcntl(read_fd, libc::F_DUPFD, 10);
                let write_copy = libc::fcntl(write_fd, libc::F_DUPFD, 10);
                if read_copy < 0
                    || write_copy < 0
                    || libc::dup2(read_copy, 3) < 0
                    || libc::dup2(write_copy, 4) < 0
                {
                    return Err(std::io::Error::last_os_error());
                }
                Ok(())
            });
        }
        let chromium = command
            .spawn()
            .expect("run chromium (scripts/install-test-tools installs it)");
        // Chromium holds its own ends now: an exit closes the pipe and ends the reader.
        drop((browser_reads, browser_writes));
        let (send, messages) = channel();
        std::thread::spawn(move || {
            let mut answers = BufReader::new(answers);
            loop {
                let mut message = Vec::new();
                match answers.read_until(0, &mut message) {
                    Ok(0) | Err(_) => return,
                    Ok(_) => {
                        message.pop_if(|byte| *byte == 0);
                        let Ok(message) = serde_json::from_slice::<Value>(&message) else {
                            continue;
                        };
                        if send.send(message).is_err() {
                            return;
                        }
                    }
                }
            }
        });
        let mut tab = Tab {
            chromium,
            commands,
            messages,
            next_id: 0,
            session: String::new(),
            _profile: profile,
        };
        let target = tab.call("Target.createTarget", json!({ "url": "about:blank" }));
        let target = target["targetId"].as_str().expect("targetId").to_string();
        let attached = tab.call(
            "Target.attachToTarget",
            json!({ "targetId": target, "flatten": true }),
        );
        tab.session = attached["sessionId"]
            .as_str()
            .expect("sessionId")
            .to_string();
        tab.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": false }),
        );
        tab.call("Page.enable", json!({}));
        tab.call("Page.navigate", json!({ "url": url }));
        tab
    }

    /// Sends a command (to the tab once attached) and returns its result.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let mut message = json!({ "id": id, "method": method, "params": params });
        if !self.session.is_empty() {
            message["sessionId"] = json!(self.session);
        }
        let mut bytes = serde_json::to_vec(&message).expect("JSON");
        bytes.push(0);
        self.commands
            .write_all(&bytes)
            .unwrap_or_else(|e| panic!("{method}: chromium is gone: {e}"));
        let deadline = Instant::now() + COMMAND_TIMEOUT;
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.messages.recv_timeout(left) {
                // Events and answers to other commands.
                Ok(answer) if answer["id"] != json!(id) => continue,
                Ok(answer) => {
                    assert!(answer["error"].is_null(), "{method}: {answer}");
                    return answer["result"].clone();
                }
                Err(RecvTimeoutError::Timeout) => panic!("{method}: no answer in {left:?}"),
                Err(RecvTimeoutError::Disconnected) => panic!("{method}: chromium exited"),
            }
        }
    }

    /// The value of a JavaScript expression in the page (promises awaited), as JSON.
    pub fn evaluate(&mut self, expression: &str) -> Value {
        let result = self.call(
            "Runtime.evaluate",
            json!({ "expression": expression, "returnByValue": true, "awaitPromise": true }),
        );
        assert!(
            result["exceptionDetails"].is_null(),
            "{}…: {}",
            expression.chars().take(60).collect::<String>(),
            result["exceptionDetails"]
        );
        result["result"]["value"].clone()
    }

    /// A PNG of the whole page (not only the viewport).
    pub fn screenshot(&mut self) -> Vec<u8> {
        let metrics = self.call("Page.getLayoutMetrics", json!({}));
        let size = &metrics["cssContentSize"];
        let shot = self.call(
            "Page.captureScreenshot",
            json!({
                "format": "png",
                "captureBeyondViewport": true,
                "clip": { "x": 0, "y": 0, "width": size["width"], "height": size["height"], "scale": 1 },
            }),
        );
        decode_base64(shot["data"].as_str().expect("screenshot data"))
    }

    /// Writes [`Tab::screenshot`] to `path`.
    pub fn save_screenshot(&mut self, path: &Path) {
        let png = self.screenshot();
        std::fs::write(path, png).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
}

impl Drop for Tab {
    fn drop(&mut self) {
        let _ = self.chromium.kill();
        let _ = self.chromium.wait();
    }
}

/// Standard base64 (what the protocol sends binary data as).
fn decode_base64(text: &str) -> Vec<u8> {
    let value = |byte: u8| -> u32 {
        match byte {
            b'A'..=b'Z' => u32::from(byte - b'A'),
            b'a'..=b'z' => u32::from(byte - b'a') + 26,
            b'0'..=b'9' => u32::from(byte - b'0') + 52,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {byte}"),
        }
    };
    let digits: Vec<u8> = text.bytes().filter(|byte| *byte != b'=').collect();
    let mut bytes = Vec::with_capacity(digits.len() * 3 / 4);
    for chunk in digits.chunks(4) {
        let bits = chunk.iter().enumerate().fold(0u32, |bits, (i, &digit)| {
            bits | value(digit) << (18 - 6 * i)
        });
        let whole = [(bits >> 16) as u8, (bits >> 8) as u8, bits as u8];
        bytes.extend_from_slice(&whole[..chunk.len() - 1]);
    }
    bytes
}
