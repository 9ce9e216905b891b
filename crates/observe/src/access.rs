//! Who may read the dashboard: loopback by default; any other address needs a token, and a
//! token, once set, is checked on every request (constant-time).

use std::net::SocketAddr;

use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use subtle::ConstantTimeEq;

use crate::error::ServeError;

/// The token requests must carry, if any.
#[derive(Clone, Debug, Default)]
pub struct AccessToken(Option<String>);

impl AccessToken {
    /// Checks that `addr` may be bound with `token`: a non-loopback address needs one.
    pub fn for_address(addr: SocketAddr, token: Option<String>) -> Result<AccessToken, ServeError> {
        let token = token.filter(|t| !t.is_empty());
        if !addr.ip().is_loopback() && token.is_none() {
            return Err(ServeError::TokenRequired(addr));
        }
        Ok(AccessToken(token))
    }

    fn admits(&self, request: &Request) -> bool {
        let Some(expected) = &self.0 else {
            return true;
        };
        let given = bearer(request).or_else(|| query_token(request));
        given.is_some_and(|given| bool::from(given.as_bytes().ct_eq(expected.as_bytes())))
    }
}

/// `Authorization: Bearer TOKEN`.
fn bearer(request: &Request) -> Option<&str> {
    request
        .headers()
        .get(header::AUTHORIZATION)?
        .to_str()
        .ok()?
        .strip_prefix("Bearer ")
}

/// `?token=TOKEN` (a browser opening the dashboard link; the page passes it on to its API
/// calls). Tokens are taken verbatim: use URL-safe characters.
fn query_token(request: &Request) -> Option<&str> {
    request
        .uri()
        .query()?
        .split('&')
        .find_map(|pair| pair.strip_prefix("token="))
}

/// Middleware: 401 unless the request carries the token.
pub(crate) async fn require_token(
    State(token): State<AccessToken>,
    request: Request,
    next: Next,
) -> Response {
    if token.admits(&request) {
        next.run(request).await
    } else {
        (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "token required\n",
        )
            .into_response()
    }
}
