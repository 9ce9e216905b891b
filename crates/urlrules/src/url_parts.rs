//! The parts of a URL rules look at: its query parameters as written ([`QueryParams`]) and its
//! path segments ([`PathSegments`]).

use std::collections::BTreeSet;

use url::Url;

/// A URL's query as `name=value` parts in their order, names and values as written (not
/// decoded: rules never change what they keep).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct QueryParams {
    parts: Vec<(String, String)>,
}

impl QueryParams {
    pub(crate) fn of(url: &Url) -> QueryParams {
        let parts = url
            .query()
            .unwrap_or_default()
            .split('&')
            .filter(|part| !part.is_empty())
            .map(|part| match part.split_once('=') {
                Some((name, value)) => (name.to_string(), value.to_string()),
                None => (part.to_string(), String::new()),
            })
            .collect();
        QueryParams { parts }
    }

    /// Every value of `name` out.
    pub(crate) fn remove(&mut self, name: &str) {
        self.parts.retain(|(n, _)| n != name);
    }

    /// The names whose values (in order) differ between the two queries, sorted.
    pub(crate) fn differing_names(&self, other: &QueryParams) -> Vec<String> {
        let names: BTreeSet<&String> = self
            .parts
            .iter()
            .chain(&other.parts)
            .map(|p| &p.0)
            .collect();
        names
            .into_iter()
            .filter(|name| self.values(name) != other.values(name))
            .cloned()
            .collect()
    }

    fn values<'a>(&'a self, name: &str) -> Vec<&'a str> {
        self.parts
            .iter()
            .filter(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// Writes the parameters back as `url`'s query (none when empty).
    pub(crate) fn write_to(&self, url: &mut Url) {
        if self.parts.is_empty() {
            url.set_query(None);
            return;
        }
        let query: Vec<String> = self
            .parts
            .iter()
            .map(|(name, value)| format!("{name}={value}"))
            .collect();
        url.set_query(Some(&query.join("&")));
    }
}

/// A path as its segments: `/a/b/` is `a`, `b`, `` (the empty last segment is the trailing
/// slash), `/` is one empty segment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PathSegments {
    segments: Vec<String>,
}

impl PathSegments {
    pub(crate) fn of(path: &str) -> PathSegments {
        let segments = path
            .strip_prefix('/')
            .unwrap_or(path)
            .split('/')
            .map(str::to_string)
            .collect();
        PathSegments { segments }
    }

    pub(crate) fn to_path(&self) -> String {
        format!("/{}", self.segments.join("/"))
    }

    /// Keeps the segments `keep` says yes to (the root stays `/`).
    pub(crate) fn retain(&mut self, keep: impl Fn(&str) -> bool) {
        self.segments.retain(|s| keep(s));
        if self.segments.is_empty() {
            self.segments.push(String::new());
        }
    }

    /// Drops the trailing slash (not the root's).
    pub(crate) fn trim_trailing_slash(&mut self) {
        if self.segments.len() > 1 && self.segments.last().is_some_and(String::is_empty) {
            self.segments.pop();
        }
    }

    /// Replaces the last segment when it is `from`; whether it did.
    pub(crate) fn replace_last(&mut self, from: &str, to: &str) -> bool {
        match self.segments.last_mut() {
            Some(last) if last == from => {
                *last = to.to_string();
                true
            }
            _ => false,
        }
    }

    /// Where `prefix` then `from` start the path, puts `to` in `from`'s place; whether it did.
    pub(crate) fn replace_after(
        &mut self,
        prefix: &[String],
        from: &[String],
        to: &[String],
    ) -> bool {
        let starts = self.segments.len() >= prefix.len() + from.len()
            && self.segments[..prefix.len()] == *prefix
            && self.segments[prefix.len()..prefix.len() + from.len()] == *from;
        if starts {
            let at = prefix.len();
            self.segments
                .splice(at..at + from.len(), to.iter().cloned());
        }
        starts
    }

    /// The common leading segments, then what each path has between them and the common
    /// trailing segments.
    pub(crate) fn difference(
        &self,
        other: &PathSegments,
    ) -> (Vec<String>, Vec<String>, Vec<String>) {
        let (a, b) = (&self.segments, &other.segments);
        let prefix = a.iter().zip(b).take_while(|(x, y)| x == y).count();
        let room = a.len().min(b.len()) - prefix;
        let suffix = a
            .iter()
            .rev()
            .zip(b.iter().rev())
            .take(room)
            .take_while(|(x, y)| x == y)
            .count();
        (
            a[..prefix].to_vec(),
            a[prefix..a.len() - suffix].to_vec(),
            b[prefix..b.len() - suffix].to_vec(),
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_keep_the_trailing_slash_apart() {
        assert_eq!(PathSegments::of("/a/b/").to_path(), "/a/b/");
        assert_eq!(PathSegments::of("/").to_path(), "/");
        let mut root = PathSegments::of("/print");
        root.retain(|s| s != "print");
        assert_eq!(root.to_path(), "/");
        let mut slash = PathSegments::of("/a/");
        slash.trim_trailing_slash();
        assert_eq!(slash.to_path(), "/a");
    }

    #[test]
    fn the_difference_of_two_paths_does_not_overlap() {
        let (p, a, b) = PathSegments::of("/a/a").difference(&PathSegments::of("/a/a/a"));
        assert_eq!((p.len(), a.len(), b.len()), (2, 0, 1));
    }

    #[test]
    fn query_parameters_stay_as_written() {
        let mut url = Url::parse("http://h/x?b=%20&a=1&b=2").unwrap();
        let mut params = QueryParams::of(&url);
        params.remove("a");
        params.write_to(&mut url);
        assert_eq!(url.as_str(), "http://h/x?b=%20&b=2");
    }
}
