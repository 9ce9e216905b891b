//! Name resolution overrides: names answered from a fixed table instead of DNS (as curl's
//! `--resolve` does), and optionally no DNS at all, so a test or a staging crawl can say
//! exactly where each name goes and be sure no query leaves the machine.

use std::collections::BTreeMap;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;

use reqwest::dns::{Addrs, Name, Resolve, Resolving};

/// A name that is neither an IP literal nor in the table of a resolve-only fetcher.
#[derive(Debug, thiserror::Error)]
#[error(
    "name does not resolve ({name} is not in the resolve table; resolve_only sends no DNS query)"
)]
pub struct NotInTable {
    pub name: String,
}

/// Answers names from `table` only (port 0: the URL's port, or the scheme's, is used).
#[derive(Debug, Clone)]
pub(crate) struct TableResolver {
    table: Arc<BTreeMap<String, IpAddr>>,
}

impl TableResolver {
    pub(crate) fn new(table: &BTreeMap<String, IpAddr>) -> TableResolver {
        TableResolver {
            table: Arc::new(
                table
                    .iter()
                    .map(|(name, ip)| (name.to_ascii_lowercase(), *ip))
                    .collect(),
            ),
        }
    }
}

impl Resolve for TableResolver {
    fn resolve(&self, name: Name) -> Resolving {
        let found = self.table.get(&name.as_str().to_ascii_lowercase()).copied();
        let name = name.as_str().to_owned();
        Box::pin(async move {
            match found {
                Some(ip) => {
                    let addrs: Addrs = Box::new(std::iter::once(SocketAddr::new(ip, 0)));
                    Ok(addrs)
                }
                None => Err(Box::new(NotInTable { name }) as Box<_>),
            }
        })
    }
}
