//! Ground truth of the page-class hosts, as data a test can score a crawl against.

use serde::Serialize;

/// The page classes of issue 10, one fixture each.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PageClass {
    /// Products whose main column is ~90-95 % one shared template.
    HeavyTemplate,
    /// Another host's articles republished in the mirror's own template, with edits.
    Mirror,
    /// Stories split into parts plus an all-on-one-page version.
    MultiPart,
    /// Pages whose HTML changes on every request, and copies of them.
    Noise,
    /// Pages that differ only by identifier tokens (`u128`/`i128`, `blkcnt_t`/`pthread_t`).
    Identifiers,
    /// Pagination hubs that differ only by the articles they list, and those articles.
    Hubs,
}

impl PageClass {
    pub const ALL: [PageClass; 6] = [
        PageClass::HeavyTemplate,
        PageClass::Mirror,
        PageClass::MultiPart,
        PageClass::Noise,
        PageClass::Identifiers,
        PageClass::Hubs,
    ];

    pub fn name(self) -> &'static str {
        match self {
            PageClass::HeavyTemplate => "heavy template",
            PageClass::Mirror => "mirror",
            PageClass::MultiPart => "multi-part",
            PageClass::Noise => "noise",
            PageClass::Identifiers => "identifiers",
            PageClass::Hubs => "hubs",
        }
    }
}

/// `copy` republishes `original` (fetched before it: the copy is only linked from it).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct CopyOf {
    pub copy: String,
    pub original: String,
}

/// `part` is almost wholly inside `whole`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct PartOf {
    pub part: String,
    pub whole: String,
    /// True when the part is only reachable before the whole (parts link to the whole),
    /// false when only through the whole.
    pub fetched_before_whole: bool,
}

/// One class: its distinct pages (each must be archived), its copies (each must be linked to
/// its original) and its parts (each must end linked to its whole). A URL is in one list only.
#[derive(Clone, Debug, Serialize)]
pub struct ClassTruth {
    pub class: PageClass,
    pub distinct: Vec<String>,
    pub copies: Vec<CopyOf>,
    pub parts: Vec<PartOf>,
}

impl ClassTruth {
    pub(crate) fn new(class: PageClass) -> Self {
        ClassTruth {
            class,
            distinct: Vec::new(),
            copies: Vec::new(),
            parts: Vec::new(),
        }
    }

    /// Every URL of the class.
    pub fn urls(&self) -> impl Iterator<Item = &str> {
        self.distinct
            .iter()
            .map(String::as_str)
            .chain(self.copies.iter().map(|c| c.copy.as_str()))
            .chain(self.parts.iter().map(|p| p.part.as_str()))
    }
}

/// The ground truth of a [`crate::ClassesSite`].
#[derive(Clone, Debug, Serialize)]
pub struct ClassesTruth {
    /// The hosts' roots: crawl from these.
    pub seeds: Vec<String>,
    pub classes: Vec<ClassTruth>,
}

impl ClassesTruth {
    pub fn class(&self, class: PageClass) -> &ClassTruth {
        self.classes
            .iter()
            .find(|c| c.class == class)
            .expect("every class has a truth")
    }
}
