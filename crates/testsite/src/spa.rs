//! A host whose pages a browser must render: single-page-app shells (an empty
//! `<div id="root">` and a script that fetches the page's JSON and writes its text and links),
//! a page whose script only decorates text that is already there, a page whose script polls
//! forever (it never settles), a page whose script waits for a slow answer, and a page whose
//! script reaches for another host.

use std::io;
use std::net::{Ipv4Addr, SocketAddr};

use tokio::net::TcpListener;
use tokio::sync::watch;

use crate::page_server::PageSource;
use crate::text::prose_for;

/// Pages of the app (`/app/N`), each linking to the next ones.
pub const SPA_PAGES: usize = 4;

/// The app's script: fetches `/api/<path>.json` and writes its title, text and links.
const APP_SCRIPT: &str = r#"
fetch('/api' + (location.pathname === '/' ? '/home' : location.pathname) + '.json')
  .then(response => response.json())
  .then(page => {
    document.title = page.title;
    const root = document.getElementById('root');
    root.innerHTML = '<h1></h1>' + page.paragraphs.map(() => '<p></p>').join('') +
      '<ul>' + page.links.map(() => '<li><a></a></li>').join('') + '</ul>';
    root.querySelector('h1').textContent = page.title;
    root.querySelectorAll('p').forEach((p, i) => { p.textContent = page.paragraphs[i]; });
    root.querySelectorAll('a').forEach((a, i) => {
      a.setAttribute('href', page.links[i].href);
      a.textContent = page.links[i].text;
    });
  });
"#;

/// Polls the server forever and writes what it says.
const POLLING_SCRIPT: &str = r#"
function poll() {
  fetch('/api/poll.json').then(r => r.json()).then(data => {
    document.getElementById('root').textContent = data.text;
    setTimeout(poll, 100);
  });
}
poll();
"#;

/// How long the slow page's answer takes: longer than the renderer's quiet window.
pub const SLOW_ANSWER: std::time::Duration = std::time::Duration::from_millis(1500);

/// Asks for one slow answer and writes it.
const SLOW_SCRIPT: &str = r#"
fetch('/api/slow.json').then(r => r.json()).then(data => {
  document.getElementById('root').textContent = data.text;
});
"#;

struct Spa {
    /// The other host the reaching page's script asks (it must be blocked).
    other_host: String,
}

fn shell(script: &str) -> String {
    format!(
        "<!doctype html><html lang=\"en\"><head><title>Loading</title>\
         <script src=\"{script}\" defer></script></head>\
         <body><div id=\"root\"></div><noscript>This app needs JavaScript.</noscript></body></html>"
    )
}

fn json_string(text: &str) -> String {
    format!("\"{}\"", text.replace('\\', "\\\\").replace('"', "\\\""))
}

/// The JSON of an app page: its title, paragraphs and links.
fn app_json(title: &str, key: &str, links: &[(String, String)]) -> String {
    let paragraphs: Vec<String> = prose_for(key, 150).iter().map(|p| json_string(p)).collect();
    let links: Vec<String> = links
        .iter()
        .map(|(href, text)| {
            format!(
                "{{\"href\": {}, \"text\": {}}}",
                json_string(href),
                json_string(text)
            )
        })
        .collect();
    format!(
        "{{\"title\": {}, \"paragraphs\": [{}], \"links\": [{}]}}",
        json_string(title),
        paragraphs.join(", "),
        links.join(", ")
    )
}

fn app_links(from: usize) -> Vec<(String, String)> {
    (from..=SPA_PAGES)
        .map(|n| (format!("/app/{n}"), format!("App page {n}")))
        .collect()
}

impl PageSource for Spa {
    fn file(&self, path_and_query: &str) -> Option<(&'static str, String)> {
        let javascript = "text/javascript; charset=utf-8";
        let json = "application/json";
        match path_and_query {
            "/app.js" => Some((javascript, APP_SCRIPT.to_string())),
            "/poll.js" => Some((javascript, POLLING_SCRIPT.to_string())),
            "/slow.js" => Some((javascript, SLOW_SCRIPT.to_string())),
            "/api/slow.json" => Some((json, "{\"text\": \"the slow answer\"}".to_string())),
            "/decorate.js" => Some((
                javascript,
                "document.querySelectorAll('p').forEach(p => p.classList.add('shown'));".into(),
            )),
            "/api/home.json" => Some((json, app_json("App home", "spa home", &app_links(1)))),
            "/api/poll.json" => Some((json, "{\"text\": \"still polling\"}".to_string())),
            _ => {
                let n: usize = path_and_query
                    .strip_prefix("/api/app/")?
                    .strip_suffix(".json")?
                    .parse()
                    .ok()
                    .filter(|n| (1..=SPA_PAGES).contains(n))?;
                let title = format!("App page {n}");
                Some((
                    json,
                    app_json(&title, &format!("spa page {n}"), &app_links(n + 1)),
                ))
            }
        }
    }

    fn delay(&self, path_and_query: &str) -> Option<std::time::Duration> {
        (path_and_query == "/api/slow.json").then_some(SLOW_ANSWER)
    }

    fn page(&self, path_and_query: &str) -> Option<String> {
        match path_and_query {
            "/" => Some(shell("/app.js")),
            "/never-settles" => Some(shell("/poll.js")),
            "/slow-answer" => Some(shell("/slow.js")),
            "/decorated" => {
                let text: String = prose_for("spa decorated", 200)
                    .iter()
                    .map(|p| format!("<p>{p}</p>"))
                    .collect();
                Some(format!(
                    "<!doctype html><html lang=\"en\"><head><title>Decorated</title>\
                     <script src=\"/decorate.js\" defer></script></head>\
                     <body><main><h1>Decorated</h1>{text}</main></body></html>"
                ))
            }
            "/reaches-out" => Some(format!(
                "<!doctype html><html lang=\"en\"><head><title>Reaching</title></head>\
                 <body><div id=\"root\"></div><script>\
                 fetch('{}/track').then(r => r.text()).then(t => {{ document.getElementById('root').textContent = 'other host answered: ' + t; }})\
                 .catch(() => {{ document.getElementById('root').textContent = 'other host blocked'; }});\
                 </script></body></html>",
                self.other_host
            )),
            _ => {
                let n: usize = path_and_query.strip_prefix("/app/")?.parse().ok()?;
                (1..=SPA_PAGES).contains(&n).then(|| shell("/app.js"))
            }
        }
    }
}

/// The single-page-app host, and another host its reaching page asks.
pub struct SpaSite {
    base: String,
    other: String,
    _shutdown: watch::Sender<()>,
}

struct OtherHost;

impl PageSource for OtherHost {
    fn file(&self, path_and_query: &str) -> Option<(&'static str, String)> {
        (path_and_query == "/track").then(|| ("text/plain", "tracked".to_string()))
    }

    fn page(&self, _path_and_query: &str) -> Option<String> {
        None
    }
}

impl SpaSite {
    pub async fn start() -> io::Result<SpaSite> {
        let listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await?;
        let other_listener = TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0))).await?;
        let base = format!("http://{}", listener.local_addr()?);
        let other = format!("http://{}", other_listener.local_addr()?);
        let app = Spa {
            other_host: other.clone(),
        };
        let (tx, rx) = watch::channel(());
        crate::page_server::serve(listener, std::sync::Arc::new(app), rx.clone());
        crate::page_server::serve(other_listener, std::sync::Arc::new(OtherHost), rx);
        Ok(SpaSite {
            base,
            other,
            _shutdown: tx,
        })
    }

    /// The app's home page (the seed).
    pub fn seed(&self) -> String {
        format!("{}/", self.base)
    }

    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }

    /// The other host (its requests must be blocked).
    pub fn other_host(&self) -> &str {
        &self.other
    }

    /// The app's pages a crawl that renders must archive (the home page's links lead there).
    pub fn app_pages(&self) -> Vec<String> {
        (1..=SPA_PAGES)
            .map(|n| format!("{}/app/{n}", self.base))
            .collect()
    }

    /// A word the rendered text of app page `n` (0: home) has and its shell has not.
    pub fn app_title(n: usize) -> String {
        if n == 0 {
            "App home".to_string()
        } else {
            format!("App page {n}")
        }
    }
}
