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

    /// Keeps the segments `keep` says yes to, given their position (the root stays `/`).
    pub(crate) fn retain(&mut self, keep: impl Fn(usize, &str) -> bool) {
        let mut at = 0;
        self.segments.retain(|s| {
            at += 1;
            keep(at - 1, s)
        });
        if self.segments.is_empty() {
            self.segments.push(String::new());
        }
    }

    /// Where a directory page's own directory is: the segment before the empty last segment
    /// (`/a/b/`) or before a directory index file (`/a/b/index.html`); `None` for a page that
    /// is not a directory's index. That segment names which directory the page lists, so
    /// rules that remove or substitute segments leave it alone.
    pub(crate) fn own_directory(&self) -> Option<usize> {
        let last = self.segments.last()?;
        let index = last.is_empty() || is_directory_index_file(last);
        (index && self.segments.len() >= 2).then(|| self.segments.len() - 2)
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
        let replaced = prefix.len()..prefix.len() + from.len();
        let starts = self.segments.len() >= replaced.end
            && self.segments[..prefix.len()] == *prefix
            && self.segments[replaced.clone()] == *from
            && self
                .own_directory()
                .is_none_or(|own| !replaced.contains(&own));
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

/// The shape of a URL's last path segment: `/` for a directory (`/a/b/`), `KIND.*.EXT` for a
/// name of three or more dotted parts (`struct.*.html` of `struct.Mutex.html`), `*.EXT` for
/// two (`*.html`), `0` for a number and `*` for any other name. A rule holds for the shapes
/// of the pairs it was learned from ([`crate::RuleRecord::shapes`]): items of one kind under
/// two names do not say that items of another kind are.
pub fn leaf_shape(url: &Url) -> String {
    let leaf = url.path().rsplit('/').next().unwrap_or_default();
    let parts: Vec<&str> = leaf.split('.').collect();
    match parts.as_slice() {
        [""] => "/".to_string(),
        [one] if one.bytes().all(|b| b.is_ascii_digit()) => "0".to_string(),
        [_] => "*".to_string(),
        [_, extension] => format!("*.{extension}"),
        [kind, .., extension] => format!("{kind}.*.{extension}"),
        [] => "/".to_string(),
    }
}

/// Names a server gives a directory's index: `index` or `default`, with any extension
/// (`index.html`, `index.php`, `default.aspx`).
const DIRECTORY_INDEX_STEMS: [&str; 2] = ["index", "default"];

fn is_directory_index_file(segment: &str) -> bool {
    let stem = segment.split('.').next().unwrap_or(segment);
    DIRECTORY_INDEX_STEMS
        .iter()
        .any(|index| stem.eq_ignore_ascii_case(index))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_keep_the_trailing_slash_apart() {
        assert_eq!(PathSegments::of("/a/b/").to_path(), "/a/b/");
        assert_eq!(PathSegments::of("/").to_path(), "/");
        let mut root = PathSegments::of("/print");
        root.retain(|_, s| s != "print");
        assert_eq!(root.to_path(), "/");
        let mut slash = PathSegments::of("/a/");
        slash.trim_trailing_slash();
        assert_eq!(slash.to_path(), "/a");
    }

    #[test]
    fn a_directory_page_has_its_own_directory() {
        let own = |path: &str| PathSegments::of(path).own_directory();
        assert_eq!(own("/std/ffi/c_str/index.html"), Some(2));
        assert_eq!(own("/docs/"), Some(0));
        assert_eq!(own("/a/Default.aspx"), Some(0));
        assert_eq!(own("/std/ffi/struct.CString.html"), None);
        assert_eq!(own("/"), None);
        assert_eq!(own("/indexes/x.html"), None);
    }

    #[test]
    fn leaf_shapes() {
        let shape = |url: &str| leaf_shape(&Url::parse(url).unwrap());
        assert_eq!(
            shape("http://h/std/sync/struct.Mutex.html"),
            "struct.*.html"
        );
        assert_eq!(
            shape("http://h/std/sync/enum.TryLockError.html"),
            "enum.*.html"
        );
        assert_eq!(shape("http://h/manual/ch1/index.html"), "*.html");
        assert_eq!(shape("http://h/manual/ch1/"), "/");
        assert_eq!(shape("http://h/"), "/");
        assert_eq!(shape("http://h/news/17?ref=x"), "0");
        assert_eq!(shape("http://h/guide/3/amp"), "*");
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
