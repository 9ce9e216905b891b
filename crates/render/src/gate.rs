//! What a rendered page may fetch: the caller's decision on each request the page makes.

use std::future::Future;
use std::pin::Pin;

/// The gate's answer for one request of a rendered page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Subrequest {
    /// The browser makes the request (the gate has waited for the host's politeness).
    Allow,
    /// The request fails in the page (`BlockedByClient`).
    Block,
}

/// The future a [`RequestGate`] answers with.
pub type GateFuture<'a> = Pin<Box<dyn Future<Output = Subrequest> + Send + 'a>>;

/// Decides each request a rendered page makes, other than its own document (which the
/// renderer answers with the bytes it was given). Implementations wait for the host's
/// politeness before answering [`Subrequest::Allow`].
pub trait RequestGate: Send + Sync {
    fn admit<'a>(&'a self, url: &'a url::Url) -> GateFuture<'a>;
}

/// Allows every request at once (for tools and tests that serve their own pages).
pub struct AllowAll;

impl RequestGate for AllowAll {
    fn admit<'a>(&'a self, _url: &'a url::Url) -> GateFuture<'a> {
        Box::pin(async { Subrequest::Allow })
    }
}
