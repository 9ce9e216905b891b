//! What a report measures on one decisions file against one truth: exact pair counts, the
//! clusters of the decisions, pair recall and link precision.

use std::collections::HashMap;

use dedupcrawl_bench::PairCounts;
use dedupcrawl_textprep::{TextPrep, View};

use crate::replay::{DocumentRecall, Replay};
use crate::{Corpus, Doc, Truth};

pub(crate) fn find(parent: &mut [usize], mut x: usize) -> usize {
    while parent[x] != x {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    x
}

/// One decisions file and what every report on it reads.
pub(crate) struct DecisionRun<'a> {
    pub(crate) view: View,
    pub(crate) view_name: &'a str,
    pub(crate) docs: &'a [Doc],
    pub(crate) corpus: &'a Corpus,
    pub(crate) prep: &'a TextPrep,
    pub(crate) replay: &'a Replay,
    pub(crate) document_recall: &'a DocumentRecall,
}

/// Exact pair counts of one truth over its non-empty documents.
pub(crate) struct TruthPairs<'a> {
    /// The documents with a non-empty set, and each one's slot in `sets`.
    pub(crate) members: Vec<usize>,
    pub(crate) slot: HashMap<usize, usize>,
    pub(crate) sets: Vec<&'a Vec<u64>>,
    pub(crate) counts: PairCounts,
    pub(crate) seconds: f64,
}

impl<'a> TruthPairs<'a> {
    pub(crate) fn new(docs: &'a [Doc], truth: Truth) -> TruthPairs<'a> {
        let members: Vec<usize> = (0..docs.len())
            .filter(|&i| !truth.set(&docs[i]).is_empty())
            .collect();
        let slot = members.iter().enumerate().map(|(s, &d)| (d, s)).collect();
        let started = std::time::Instant::now();
        let sets: Vec<&Vec<u64>> = members.iter().map(|&i| truth.set(&docs[i])).collect();
        let counts = PairCounts::new(&sets);
        TruthPairs {
            members,
            slot,
            sets,
            counts,
            seconds: started.elapsed().as_secs_f64(),
        }
    }

    pub(crate) fn jaccard(&self, a: usize, b: usize) -> Option<f64> {
        let (sa, sb) = (self.slot.get(&a)?, self.slot.get(&b)?);
        let c = self.counts.get(*sa, *sb) as f64;
        let (la, lb) = (self.sets[*sa].len() as f64, self.sets[*sb].len() as f64);
        Some(c / (la + lb - c))
    }

    pub(crate) fn containment(&self, a: usize, b: usize) -> Option<f64> {
        let (sa, sb) = (self.slot.get(&a)?, self.slot.get(&b)?);
        Some(self.counts.get(*sa, *sb) as f64 / self.sets[*sa].len() as f64)
    }
}

/// The clusters of the decisions: the connected components of the `duplicate_of` links.
pub(crate) struct Clusters<'a> {
    /// (document, the page it names, decision kind).
    pub(crate) links: Vec<(usize, usize, &'a str)>,
    /// The pages new pages list in `contains`: (listed page, the page that contains it). Not
    /// cluster links: a page that holds others is archived beside them.
    pub(crate) listed: Vec<(usize, usize)>,
    /// Links naming a page outside the run.
    pub(crate) unresolved: usize,
    /// Each document's cluster (a representative document).
    pub(crate) of: Vec<usize>,
}

impl<'a> Clusters<'a> {
    pub(crate) fn of(docs: &'a [Doc]) -> Clusters<'a> {
        let by_path: HashMap<&str, usize> = docs
            .iter()
            .enumerate()
            .map(|(i, d)| (d.path.as_str(), i))
            .collect();
        let mut parent: Vec<usize> = (0..docs.len()).collect();
        let mut links = Vec::new();
        let mut listed = Vec::new();
        let mut unresolved = 0;
        for (i, d) in docs.iter().enumerate() {
            for part in &d.contains {
                match by_path.get(part.as_str()) {
                    Some(&j) => listed.push((j, i)),
                    None => unresolved += 1,
                }
            }
            if let Some(of) = &d.duplicate_of {
                match by_path.get(of.as_str()) {
                    Some(&j) => {
                        links.push((i, j, d.decision.as_str()));
                        let (ri, rj) = (find(&mut parent, i), find(&mut parent, j));
                        parent[ri] = rj;
                    }
                    None => unresolved += 1,
                }
            }
        }
        let of = (0..docs.len()).map(|i| find(&mut parent, i)).collect();
        Clusters {
            links,
            listed,
            unresolved,
            of,
        }
    }
}

/// Pair recall of the clusters against one truth.
pub(crate) struct PairRecall {
    /// At J ≥ 0.9 and ≥ 0.8: true pairs, and of them in one cluster.
    pub(crate) true_pairs: [u64; 2],
    pub(crate) found: [u64; 2],
    /// True pairs (J ≥ 0.8) not in one cluster: (J, a, b), highest J first.
    pub(crate) missed: Vec<(f64, usize, usize)>,
    /// Parts: pairs whose smaller page (at least [`PART_MIN_SHINGLES`]) is at least 0.9 inside
    /// a page at least twice as long; and of them linked (the part contained in it, listed in
    /// its `contains`, or the two in one cluster).
    pub(crate) parts: u64,
    pub(crate) parts_linked: u64,
    /// Parts not linked: (containment, part, page), highest first.
    pub(crate) parts_missed: Vec<(f64, usize, usize)>,
}

/// Shingles a part needs to count in [`PairRecall::parts`]: a moved-page stub or a one-line
/// page is inside most pages of its site.
const PART_MIN_SHINGLES: usize = 50;

impl PairRecall {
    pub(crate) fn of(pairs: &TruthPairs<'_>, clusters: &Clusters<'_>) -> PairRecall {
        let (members, sets) = (&pairs.members, &pairs.sets);
        let mut recall = PairRecall {
            true_pairs: [0; 2],
            found: [0; 2],
            missed: Vec::new(),
            parts: 0,
            parts_linked: 0,
            parts_missed: Vec::new(),
        };
        let listed: std::collections::HashSet<(usize, usize)> =
            clusters.listed.iter().copied().collect();
        for a in 0..members.len() {
            for b in a + 1..members.len() {
                let c = pairs.counts.get(a, b);
                if c == 0 {
                    continue;
                }
                let (small, large) = if sets[a].len() <= sets[b].len() {
                    (a, b)
                } else {
                    (b, a)
                };
                let inside = f64::from(c) / sets[small].len() as f64;
                if sets[small].len() >= PART_MIN_SHINGLES
                    && sets[large].len() >= 2 * sets[small].len()
                    && inside >= 0.9
                {
                    let (part, page) = (members[small], members[large]);
                    let linked =
                        clusters.of[part] == clusters.of[page] || listed.contains(&(part, page));
                    recall.parts += 1;
                    recall.parts_linked += u64::from(linked);
                    if !linked {
                        recall.parts_missed.push((inside, part, page));
                    }
                }
                let j = c as f64 / (sets[a].len() as f64 + sets[b].len() as f64 - c as f64);
                if j < 0.8 {
                    continue;
                }
                let (da, db) = (members[a], members[b]);
                let same = clusters.of[da] == clusters.of[db];
                for (t, threshold) in [0.9, 0.8].iter().enumerate() {
                    if j >= *threshold {
                        recall.true_pairs[t] += 1;
                        recall.found[t] += same as u64;
                    }
                }
                if !same {
                    recall.missed.push((j, da, db));
                }
            }
        }
        recall.missed.sort_by(|x, y| y.0.total_cmp(&x.0));
        recall.parts_missed.sort_by(|x, y| y.0.total_cmp(&x.0));
        recall
    }
}

/// Whether a link kind claims containment (a `contained` decision, a `contains` entry) rather
/// than resemblance.
pub(crate) fn is_containment(kind: &str) -> bool {
    kind == "contained" || kind == "contains"
}

/// Precision of the links against one truth and against what the dedup compared.
pub(crate) struct Precision<'a> {
    /// Per kind: links, right by the rule (J ≥ 0.75, containment ≥ 0.85), right at the
    /// threshold (J ≥ 0.8, containment ≥ 0.9).
    pub(crate) by_kind: HashMap<&'a str, (u64, u64, u64)>,
    /// Per kind, on the compared sets: links, right by the same rule.
    pub(crate) compared: HashMap<&'a str, (u64, u64)>,
    /// Links below the rule: (document, original, kind, truth measure, full-view J).
    pub(crate) false_links: Vec<(usize, usize, &'a str, f64, Option<f64>)>,
}

impl<'a> Precision<'a> {
    pub(crate) fn of(
        run: &DecisionRun<'_>,
        pairs: &TruthPairs<'_>,
        clusters: &Clusters<'a>,
    ) -> Precision<'a> {
        let (docs, replay) = (run.docs, run.replay);
        let mut precision = Precision {
            by_kind: HashMap::new(),
            compared: HashMap::new(),
            false_links: Vec::new(),
        };
        let listed = clusters
            .listed
            .iter()
            .map(|&(part, page)| (part, page, "contains"));
        let links: Vec<(usize, usize, &'a str)> =
            clusters.links.iter().copied().chain(listed).collect();
        for &(i, j, kind) in &links {
            let entry = precision.compared.entry(kind).or_default();
            entry.0 += 1;
            let ok = if is_containment(kind) {
                let c = replay.counts.get(i.min(j), i.max(j)) as f64;
                !replay.compared[i].is_empty() && c / replay.compared[i].len() as f64 >= 0.85
            } else {
                replay.jaccard(i, j) >= 0.75
            };
            entry.1 += ok as u64;
        }
        for &(i, j, kind) in &links {
            let entry = precision.by_kind.entry(kind).or_default();
            entry.0 += 1;
            let (ok, strict, measure) = if is_containment(kind) {
                let c = pairs.containment(i, j);
                (c.is_some_and(|c| c >= 0.85), c.is_some_and(|c| c >= 0.9), c)
            } else {
                // Pages with fewer tokens than a shingle have no truth set; the dedup links them
                // by payload digest only, and such a link is right when the files are equal.
                let jv = pairs.jaccard(i, j).or_else(|| {
                    let identical = kind == "exact_duplicate"
                        && std::fs::read(&docs[i].path).ok() == std::fs::read(&docs[j].path).ok();
                    identical.then_some(1.0)
                });
                (
                    jv.is_some_and(|x| x >= 0.75),
                    jv.is_some_and(|x| x >= 0.8),
                    jv,
                )
            };
            entry.1 += ok as u64;
            entry.2 += strict as u64;
            if !ok {
                let full_j = if run.view == View::MainContent {
                    let (a, b) = (&docs[i].full, &docs[j].full);
                    (!a.is_empty() && !b.is_empty()).then(|| dedupcrawl_sketch::jaccard(a, b))
                } else {
                    None
                };
                precision
                    .false_links
                    .push((i, j, kind, measure.unwrap_or(f64::NAN), full_j));
            }
        }
        precision
    }
}
