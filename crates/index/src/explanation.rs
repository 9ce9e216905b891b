//! What a decision says about itself: the mechanism that decided and the evidence it decided
//! on, produced by the decision while it decides (as tantivy's `Explanation` is produced by the
//! scorer), never reconstructed afterwards. The crawl log writes it as the `reason` object of a
//! line, `report.json` and `/metrics` count decisions per mechanism, and `dedupcrawl why`
//! prints it.
//!
//! The names are part of the crawl log's format (docs/formats.md); docs/dedup.md has one entry
//! per mechanism.

use serde::{Deserialize, Serialize};

/// The mechanism that decided a page, in the order the pipeline runs them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Mechanism {
    /// `rel=canonical` names another in-scope URL: that URL stands for the page.
    Canonical,
    /// The page resembles its host's answer to a path that cannot exist.
    Soft404,
    /// Byte-identical payload (SHA-1) of an indexed page.
    ExactPayload,
    /// The same normalized text (digest of the page's main-content tokens).
    ExactText,
    /// An LSH candidate whose verified resemblance is at least the threshold.
    NearLsh,
    /// A page whose verified containment in an indexed page is at least the containment
    /// threshold (MOD_m and block postings find the candidates).
    Containment,
    /// A page of another host whose substantial blocks and an original's are each other's at
    /// the threshold or more (a copy in another template, its own short lines around them).
    BlocksAcrossHosts,
    /// A page of another host that holds an original (at the containment threshold) and
    /// resembles it nearly as much as a near duplicate: a reprint or mirror with its own
    /// credit line or note.
    Reprint,
    /// The page's site asks a higher threshold than the index's, and the page's resemblance
    /// to its closest page is under it: archived.
    SiteThreshold,
    /// No mechanism found an earlier page this one duplicates: archived.
    New,
    /// Before any fetch: an active URL rule learned from the host's duplicate pairs maps the
    /// URL onto a page archived as new (`url_duplicate`, the line's `rule`). Last in
    /// [`Mechanism::ALL`] though it runs first: records store a mechanism's position there.
    UrlRule,
}

impl Mechanism {
    /// Every mechanism, in pipeline order (for counts and documentation), then the ones added
    /// later (a record stores a mechanism's position here, so positions never change).
    pub const ALL: [Mechanism; 11] = [
        Mechanism::Canonical,
        Mechanism::Soft404,
        Mechanism::ExactPayload,
        Mechanism::ExactText,
        Mechanism::NearLsh,
        Mechanism::Containment,
        Mechanism::BlocksAcrossHosts,
        Mechanism::Reprint,
        Mechanism::SiteThreshold,
        Mechanism::New,
        Mechanism::UrlRule,
    ];

    /// The name as the crawl log writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Mechanism::Canonical => "canonical",
            Mechanism::Soft404 => "soft_404",
            Mechanism::ExactPayload => "exact_payload",
            Mechanism::ExactText => "exact_text",
            Mechanism::NearLsh => "near_lsh",
            Mechanism::Containment => "containment",
            Mechanism::BlocksAcrossHosts => "blocks_across_hosts",
            Mechanism::Reprint => "reprint",
            Mechanism::SiteThreshold => "site_threshold",
            Mechanism::New => "new",
            Mechanism::UrlRule => "url_rule",
        }
    }

    /// One line on what the mechanism decides, for `why` and the dashboard.
    pub fn describe(self) -> &'static str {
        match self {
            Mechanism::Canonical => {
                "the page names another URL as canonical (rel=canonical): that URL stands for it"
            }
            Mechanism::Soft404 => {
                "the page resembles its host's answer to a path that cannot exist (a soft 404)"
            }
            Mechanism::ExactPayload => "the same payload bytes (SHA-1) as an earlier page",
            Mechanism::ExactText => "the same normalized main-content text as an earlier page",
            Mechanism::NearLsh => {
                "an LSH candidate whose exact resemblance of compared shingles reaches the threshold"
            }
            Mechanism::Containment => {
                "its compared shingles are, exactly counted, at least the containment threshold \
                 inside an earlier page"
            }
            Mechanism::BlocksAcrossHosts => {
                "a page of another host whose substantial blocks and this page's are each other's \
                 at the threshold or more"
            }
            Mechanism::Reprint => {
                "it holds all of a page of another host and resembles it within the reprint \
                 drift of the threshold (a copy with a credit line or note of its own)"
            }
            Mechanism::SiteThreshold => {
                "its site asks a higher threshold than the resemblance to its closest page"
            }
            Mechanism::New => "no earlier page is close enough by any mechanism",
            Mechanism::UrlRule => {
                "a URL rule learned from the host's duplicates maps the URL onto an archived \
                 page: not fetched"
            }
        }
    }
}

impl std::fmt::Display for Mechanism {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Sizes of the two compared shingle sets and their intersection, exactly counted.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct ShingleCounts {
    /// Distinct shingles of this page's compared text.
    pub page: u64,
    /// Distinct shingles of the other page's compared text.
    pub other: u64,
    /// Shingles in both.
    pub shared: u64,
}

impl ShingleCounts {
    /// Exact resemblance |A∩B| / |A∪B| (1 for two empty sets).
    pub fn resemblance(&self) -> f64 {
        let union = self.page + self.other - self.shared;
        if union == 0 {
            1.0
        } else {
            self.shared as f64 / union as f64
        }
    }

    /// Exact containment of this page in the other, |A∩B| / |A| (0 for an empty page).
    pub fn containment(&self) -> f64 {
        if self.page == 0 {
            0.0
        } else {
            self.shared as f64 / self.page as f64
        }
    }
}

/// Why a page got its decision: the evidence the deciding mechanism used. Figures a mechanism
/// does not use are absent.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Reason {
    pub mechanism: Mechanism,
    /// The sketch's estimate of the figure (MinHash for resemblance, the MOD_m sample for
    /// containment), as it ranked the candidate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub estimate: Option<f64>,
    /// The figure decided on: exact resemblance (or containment) of the two pages' compared
    /// shingle sets. Absent when a set was too large to keep (then the estimate decided).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verified: Option<f64>,
    /// The threshold the figure was held to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub threshold: Option<f64>,
    /// The exact counts behind `verified`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shingles: Option<ShingleCounts>,
    /// Candidates the mechanisms compared on the way (LSH and containment), 0 when none.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub candidates: u32,
    /// For `new`: the closest page compared and its verified resemblance, so a user sees how
    /// far the page was from being a duplicate.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closest: Option<Closest>,
    /// The answer was recorded when the same document was first decided (a resumed crawl or a
    /// second `dedup` run gets the decision it got then).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub recorded: bool,
    /// For a duplicate of a page of its host: the longest run of the page's shingles the
    /// original lacks, under the own-content veto's bound ([`crate::OWN_CONTENT_RUN`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_content_run: Option<u32>,
    /// For `blocks_across_hosts`: the shares of each page's substantial blocks the other has.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub blocks: Option<crate::BlockShares>,
    /// Blocks of the original's record left out as its host's template now (a record made
    /// before the host's template was known).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_blocks_left_out: Option<u32>,
    /// Candidates at or above the threshold that the own-content veto turned down (at most
    /// [`MAX_VETOED_SHOWN`]): the page has text of its own that each lacks.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub vetoed: Vec<Vetoed>,
    /// For a page held at the containment threshold or more in a candidate but not
    /// `contained`: its tokens of prose, under [`crate::MIN_PART_TOKENS`] (a listing is no
    /// part).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prose_tokens: Option<u32>,
    /// The index record that keeps this page's compared text (a new page, or a near
    /// duplicate or contained page kept as a cluster member).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub page_record: Option<u32>,
    /// The index record of the page it was decided against (the original).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub original_record: Option<u32>,
}

fn is_zero(value: &u32) -> bool {
    *value == 0
}

/// Vetoed candidates a reason lists at most.
pub const MAX_VETOED_SHOWN: usize = 4;

/// A candidate the own-content veto turned down.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Vetoed {
    pub name: String,
    /// Its verified resemblance (or containment) with the page.
    pub figure: f64,
    /// The longest run of the page's shingles it lacks.
    pub own_content_run: u32,
}

/// The closest page a `new` decision compared with.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Closest {
    pub name: String,
    pub resemblance: f64,
    pub containment: f64,
}

impl Reason {
    /// A reason with only its mechanism.
    pub fn of(mechanism: Mechanism) -> Reason {
        Reason {
            mechanism,
            estimate: None,
            verified: None,
            threshold: None,
            shingles: None,
            candidates: 0,
            closest: None,
            own_content_run: None,
            blocks: None,
            original_blocks_left_out: None,
            vetoed: Vec::new(),
            prose_tokens: None,
            recorded: false,
            page_record: None,
            original_record: None,
        }
    }
}
