//! Deterministic English prose: a seeded PRNG over a vocabulary and a sentence bank.
//!
//! Templates keep runs of fixed words short (at most three in a row) and fill every slot
//! from a list of dozens of words, so two independently generated texts share almost no
//! 5-word shingles while each still reads like (slightly odd) local journalism.

/// SplitMix64: tiny, fast and good enough for fixture text.
#[derive(Clone, Debug)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn new(seed: u64) -> Self {
        Rng(seed ^ 0x9E37_79B9_7F4A_7C15)
    }

    /// A generator seeded from a string key (FNV-1a), so every page can own a stream.
    pub(crate) fn from_key(key: &str) -> Self {
        Rng::new(fnv1a(key.as_bytes()))
    }

    pub(crate) fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.next_u64() % (hi - lo + 1)
    }

    pub(crate) fn pick<'a>(&mut self, items: &'a [&'a str]) -> &'a str {
        items[(self.next_u64() % items.len() as u64) as usize]
    }

    pub(crate) fn chance(&mut self, percent: u64) -> bool {
        self.next_u64() % 100 < percent
    }
}

/// FNV-1a 64-bit; also used for ETags.
pub(crate) fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in bytes {
        h ^= u64::from(*b);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

const NOUNS: &[&str] = &[
    "bridge",
    "lighthouse",
    "orchard",
    "ferry",
    "archive",
    "warehouse",
    "mill",
    "canal",
    "granary",
    "chapel",
    "tramway",
    "quarry",
    "harbour wall",
    "signal box",
    "clock tower",
    "boathouse",
    "market hall",
    "footpath",
    "reservoir",
    "observatory",
    "printing press",
    "seawall",
    "brewery",
    "bell",
    "ledger",
    "map",
    "lantern",
    "timetable",
    "greenhouse",
    "workshop",
    "furnace",
    "loom",
    "sluice gate",
    "weather vane",
    "pier",
    "toll house",
    "dovecote",
    "ice house",
    "water tower",
    "pump room",
    "bandstand",
    "allotment",
    "kiln",
    "tannery",
    "rope walk",
    "almshouse",
    "pavilion",
    "viaduct",
    "culvert",
    "jetty",
    "crane",
    "barge",
    "carriage",
    "organ",
    "tapestry",
    "telescope",
    "manuscript",
    "sundial",
    "well",
    "cellar",
    "garden",
    "fountain",
    "terrace",
    "ledge",
    "schoolhouse",
    "foundry",
    "windmill",
    "ballroom",
    "boardwalk",
    "railway cutting",
];

const ADJECTIVES: &[&str] = &[
    "quiet",
    "weathered",
    "narrow",
    "crumbling",
    "forgotten",
    "restored",
    "ancient",
    "modest",
    "elegant",
    "stubborn",
    "peculiar",
    "sturdy",
    "fragile",
    "neglected",
    "celebrated",
    "unusual",
    "enormous",
    "tiny",
    "rusted",
    "gleaming",
    "overgrown",
    "remote",
    "busy",
    "famous",
    "obscure",
    "handsome",
    "damp",
    "draughty",
    "ornate",
    "plain",
    "sprawling",
    "compact",
    "temporary",
    "permanent",
    "original",
    "crooked",
    "solid",
    "hollow",
    "painted",
    "carved",
    "wooden",
    "iron",
    "granite",
    "brick",
    "copper",
    "timber",
    "windswept",
    "sheltered",
    "municipal",
    "private",
    "derelict",
    "thriving",
    "seasonal",
    "ambitious",
    "careful",
    "expensive",
    "cheap",
    "familiar",
    "strange",
    "elaborate",
];

/// (base, past, past participle)
const VERBS: &[(&str, &str, &str)] = &[
    ("build", "built", "built"),
    ("repair", "repaired", "repaired"),
    ("inspect", "inspected", "inspected"),
    ("measure", "measured", "measured"),
    ("abandon", "abandoned", "abandoned"),
    ("restore", "restored", "restored"),
    ("document", "documented", "documented"),
    ("question", "questioned", "questioned"),
    ("design", "designed", "designed"),
    ("fund", "funded", "funded"),
    ("move", "moved", "moved"),
    ("sell", "sold", "sold"),
    ("study", "studied", "studied"),
    ("photograph", "photographed", "photographed"),
    ("map", "mapped", "mapped"),
    ("close", "closed", "closed"),
    ("reopen", "reopened", "reopened"),
    ("replace", "replaced", "replaced"),
    ("expand", "expanded", "expanded"),
    ("review", "reviewed", "reviewed"),
    ("defend", "defended", "defended"),
    ("protect", "protected", "protected"),
    ("describe", "described", "described"),
    ("discover", "discovered", "discovered"),
    ("catalogue", "catalogued", "catalogued"),
    ("paint", "painted", "painted"),
    ("test", "tested", "tested"),
    ("deliver", "delivered", "delivered"),
    ("collect", "collected", "collected"),
    ("clean", "cleaned", "cleaned"),
    ("rebuild", "rebuilt", "rebuilt"),
    ("finance", "financed", "financed"),
    ("rename", "renamed", "renamed"),
    ("survey", "surveyed", "surveyed"),
    ("monitor", "monitored", "monitored"),
    ("rescue", "rescued", "rescued"),
    ("celebrate", "celebrated", "celebrated"),
    ("criticise", "criticised", "criticised"),
    ("support", "supported", "supported"),
    ("oppose", "opposed", "opposed"),
    ("visit", "visited", "visited"),
    ("record", "recorded", "recorded"),
    ("track", "tracked", "tracked"),
    ("ship", "shipped", "shipped"),
    ("borrow", "borrowed", "borrowed"),
    ("plant", "planted", "planted"),
    ("harvest", "harvested", "harvested"),
    ("translate", "translated", "translated"),
    ("publish", "published", "published"),
    ("weigh", "weighed", "weighed"),
];

const REPORTING: &[&str] = &[
    "said",
    "noted",
    "argued",
    "admitted",
    "insisted",
    "claimed",
    "explained",
    "recalled",
    "warned",
    "suggested",
    "conceded",
    "maintained",
];

const ADVERBS: &[&str] = &[
    "quietly",
    "carefully",
    "slowly",
    "reluctantly",
    "eagerly",
    "briefly",
    "repeatedly",
    "patiently",
    "suddenly",
    "gradually",
    "formally",
    "secretly",
    "openly",
    "cheerfully",
    "methodically",
    "hastily",
    "proudly",
    "barely",
    "partly",
    "largely",
    "eventually",
    "nervously",
    "deliberately",
    "generously",
    "roughly",
];

const PLACES: &[&str] = &[
    "Aldermoor",
    "Port Calder",
    "Hollin Bridge",
    "Wexley",
    "Saltmarsh",
    "Greyhaven",
    "Kestrel Point",
    "Upper Thornby",
    "Brackenford",
    "Millbeck",
    "Castleton Sands",
    "Ravensworth",
    "Eastmere",
    "Oldcastle Quay",
    "Fenwick Green",
    "Stonebridge",
    "Marlow Heath",
    "Ashby Cross",
    "Lindenholm",
    "Pennington",
    "Cobble Hill",
    "Westfold",
    "Harrowgate",
    "Dunmore Bay",
    "Elmstead",
    "Netherby",
    "Sparrow Lane",
    "Cragside",
    "Whitlow",
    "Fairhaven",
    "Ironbridge Row",
    "Larkfield",
    "Tidewell",
    "Moorcroft",
    "Bellingham Docks",
    "Copperfield",
];

const ROLES: &[&str] = &[
    "harbour master",
    "retired surveyor",
    "county archivist",
    "parish council",
    "ferry operator",
    "structural engineer",
    "local historian",
    "museum curator",
    "fishing cooperative",
    "railway inspector",
    "schoolteacher",
    "beekeeper",
    "stonemason",
    "botanist",
    "town clerk",
    "lighthouse keeper",
    "cartographer",
    "shipwright",
    "glassblower",
    "tax assessor",
    "librarian",
    "orchard owner",
    "boatbuilder",
    "weather observer",
    "bridge warden",
    "mill owner",
    "tram driver",
    "postmistress",
    "choir director",
    "apprentice carpenter",
];

const FIRST_NAMES: &[&str] = &[
    "Agnes",
    "Tobias",
    "Margaret",
    "Idris",
    "Helena",
    "Callum",
    "Rosalind",
    "Desmond",
    "Priya",
    "Oswald",
    "Imogen",
    "Rafael",
    "Winifred",
    "Jasper",
    "Nadia",
    "Barnaby",
    "Eleanor",
    "Kofi",
    "Harriet",
    "Ambrose",
    "Siobhan",
    "Felix",
    "Constance",
    "Tomasz",
    "Beatrix",
    "Lionel",
    "Yasmin",
    "Cedric",
    "Ottilie",
    "Mungo",
];

const LAST_NAMES: &[&str] = &[
    "Pemberton",
    "Achebe",
    "Whitlock",
    "Okafor",
    "Fairbairn",
    "Lindqvist",
    "Hargreaves",
    "Moreau",
    "Blackwood",
    "Castellano",
    "Thistlewaite",
    "Nakamura",
    "Penhaligon",
    "Rosenthal",
    "Dunmore",
    "Kowalski",
    "Greenhalgh",
    "Abernethy",
    "Villiers",
    "Ashworth",
    "Trevelyan",
    "Osei",
    "Brightwater",
    "Halloran",
    "Quennell",
    "Sandoval",
    "Marchbank",
    "Ellery",
    "Featherstone",
    "Iqbal",
];

const CONNECTORS: &[&str] = &[
    "However, ",
    "Meanwhile, ",
    "Later, ",
    "In the end, ",
    "At first, ",
    "By contrast, ",
    "Even so, ",
    "For a while, ",
    "Still, ",
    "Afterwards, ",
    "Unsurprisingly, ",
    "In practice, ",
    "Eventually, ",
    "Curiously, ",
    "Even then, ",
];

const TIMES: &[&str] = &[
    "last spring",
    "in early March",
    "during the winter of {yr}",
    "over three long summers",
    "before the war",
    "in the autumn",
    "after the floods",
    "within a fortnight",
    "on a wet Tuesday",
    "the following year",
    "at the turn of the century",
    "late one evening",
    "in the same decade",
    "by the end of the month",
    "without much warning",
    "shortly after dawn",
    "around {yr}",
    "in the summer of {yr}",
    "two winters ago",
    "during a heatwave",
];

/// Sentence bank. Slots: {c} connector, {n}/{ns} noun, {a} adjective, {v}/{vb}/{vpp} verb
/// (past, base, participle), {rv} reporting verb, {d} adverb, {p} place, {r} role,
/// {t} time phrase, {num} number, {yr} year, {span} "between Y1 and Y2", {name} person.
const SENTENCES: &[&str] = &[
    "{c}the {a} {n} near {p} was {vpp} by the {r} {t}.",
    "{name}, a {r} from {p}, {v} {num} {ns} {t}.",
    "\"We {v} every {n} ourselves,\" {rv} {name}, who {d} {v} the {a} {ns} of {p}.",
    "Few {ns} in {p} are as {a} as the one {name} {v} in {yr}.",
    "{c}{name} {d} {v} a {a} {n} for the {ns} of {p}.",
    "According to {name}, the {n} cost {num} pounds and took {num} weeks to {vb}.",
    "Local {ns} {v} the plan {t}, arguing that a {a} {n} would {vb} {p}.",
    "It was {t} that the {r} first {v} the {a} {n}.",
    "Nobody expected {a} {ns} to {vb} the {n} so {d}.",
    "{c}the {ns} of {p} were {vpp} {t}, {d} and without ceremony.",
    "{name} {d} {v} the {n} with {a} {ns} and a {a} {n}.",
    "The {r} {rv} that {num} {a} {ns} had been {vpp} {t}.",
    "Visitors to {p} will find the {a} {n} beside a {a} {n}.",
    "{c}a {a} {n} {v} the {ns} of {p}.",
    "Since {yr}, the {n} at {p} has been {vpp} {num} times.",
    "{name} {rv} that the {ns} were {a} but {a}.",
    "{span}, the {r} {v} {num} {ns} along the {n}.",
    "Asked about the {n}, {name} {rv} that it was {d} {a}.",
    "What the {ns} of {p} {v} {t} was a {a} {n}.",
    "{c}the {a} {ns} {v} a {n} that nobody in {p} had {vpp}.",
    "There were {num} {ns} in the {n} when the {r} arrived {t}.",
    "Records from {yr} show the {n} was {vpp} by a {a} {r}.",
    "{c}{name} and the {r} {v} the {a} {n} {t}.",
    "The {n} at {p} is {a}, {a} and {d} {a}.",
    "A {r} named {name} {d} {v} its {ns} {t}.",
    "Some in {p} {rv} the {n} should be {vpp}, not {vpp}.",
    "{c}{num} {a} {ns} still stand where the {r} {v} them.",
    "The {r} kept a {a} {n} in the {n} at {p}.",
];

fn pluralize(noun: &str) -> String {
    let consonant_y = noun.ends_with('y')
        && !noun.ends_with("ay")
        && !noun.ends_with("ey")
        && !noun.ends_with("oy");
    if consonant_y {
        format!("{}ies", &noun[..noun.len() - 1])
    } else if noun.ends_with('s')
        || noun.ends_with("sh")
        || noun.ends_with("ch")
        || noun.ends_with('x')
    {
        format!("{noun}es")
    } else {
        format!("{noun}s")
    }
}

/// Fills a sentence template and capitalises its first letter.
fn fill(template: &str, rng: &mut Rng) -> String {
    capitalize(&fill_phrase(template, rng))
}

/// Fills a template (a sentence or a phrase inside one), fixing "a"/"an".
fn fill_phrase(template: &str, rng: &mut Rng) -> String {
    let mut out = String::with_capacity(template.len() * 2);
    let mut rest = template;
    while let Some(open) = rest.find('{') {
        out.push_str(&rest[..open]);
        let Some(close) = rest[open..].find('}') else {
            break;
        };
        let slot = &rest[open + 1..open + close];
        let verb = VERBS[(rng.next_u64() % VERBS.len() as u64) as usize];
        let piece = match slot {
            "c" => {
                if rng.chance(35) {
                    rng.pick(CONNECTORS).to_string()
                } else {
                    String::new()
                }
            }
            "n" => rng.pick(NOUNS).to_string(),
            "ns" => pluralize(rng.pick(NOUNS)),
            "a" => rng.pick(ADJECTIVES).to_string(),
            "v" => verb.1.to_string(),
            "vb" => verb.0.to_string(),
            "vpp" => verb.2.to_string(),
            "rv" => rng.pick(REPORTING).to_string(),
            "d" => rng.pick(ADVERBS).to_string(),
            "p" => rng.pick(PLACES).to_string(),
            "r" => rng.pick(ROLES).to_string(),
            "t" => fill_phrase(rng.pick(TIMES), rng),
            "num" => rng.range(3, 960).to_string(),
            "yr" => rng.range(1851, 2024).to_string(),
            "span" => {
                let from = rng.range(1851, 1990);
                format!("between {from} and {}", from + rng.range(3, 34))
            }
            "name" => format!("{} {}", rng.pick(FIRST_NAMES), rng.pick(LAST_NAMES)),
            other => other.to_string(),
        };
        out.push_str(&piece);
        rest = &rest[open + close + 1..];
    }
    out.push_str(rest);
    fix_articles(&out)
}

/// "a orchard" -> "an orchard".
fn fix_articles(s: &str) -> String {
    let words: Vec<&str> = s.split(' ').collect();
    let mut out = String::with_capacity(s.len() + 8);
    for (i, w) in words.iter().enumerate() {
        if i > 0 {
            out.push(' ');
        }
        let next_vowel = words
            .get(i + 1)
            .and_then(|n| n.chars().next())
            .is_some_and(|c| "aeiouAEIOU".contains(c));
        match *w {
            "a" if next_vowel => out.push_str("an"),
            "A" if next_vowel => out.push_str("An"),
            _ => out.push_str(w),
        }
    }
    out
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        // A leading quote: capitalise the letter after it.
        Some('"') => format!("\"{}", capitalize(chars.as_str())),
        Some(c) => c.to_uppercase().collect::<String>() + chars.as_str(),
        None => String::new(),
    }
}

fn title_case(s: &str) -> String {
    s.split(' ')
        .enumerate()
        .map(|(i, w)| {
            if i > 0 && matches!(w, "of" | "and" | "the" | "at" | "in" | "a" | "its") {
                w.to_string()
            } else {
                capitalize(w)
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

pub(crate) fn word_count(s: &str) -> usize {
    s.split_whitespace().count()
}

/// Paragraphs of prose with at least `min_words` and (normally) at most `min_words + 30` words.
pub(crate) fn prose(rng: &mut Rng, min_words: usize) -> Vec<String> {
    let mut paragraphs = Vec::new();
    let mut words = 0;
    while words < min_words {
        let sentences = rng.range(3, 6);
        let mut para = Vec::new();
        for _ in 0..sentences {
            if words >= min_words {
                break;
            }
            let s = fill(rng.pick(SENTENCES), rng);
            words += word_count(&s);
            para.push(s);
        }
        paragraphs.push(para.join(" "));
    }
    paragraphs
}

/// Prose owned by a page key (e.g. "about"): same key, same text.
pub(crate) fn prose_for(key: &str, min_words: usize) -> Vec<String> {
    prose(&mut Rng::from_key(key), min_words)
}

pub(crate) fn person(rng: &mut Rng) -> String {
    format!("{} {}", rng.pick(FIRST_NAMES), rng.pick(LAST_NAMES))
}

#[derive(Clone, Debug)]
pub(crate) struct Article {
    pub(crate) title: String,
    pub(crate) author: String,
    /// Publication date, `YYYY-MM-DD`.
    pub(crate) date: String,
    pub(crate) paragraphs: Vec<String>,
}

impl Article {
    pub(crate) fn text(&self) -> String {
        self.paragraphs.join("\n\n")
    }

    pub(crate) fn teaser(&self) -> &str {
        let first = self.paragraphs.first().map(String::as_str).unwrap_or("");
        match first.find(". ") {
            Some(i) => &first[..=i],
            None => first,
        }
    }
}

const TITLE_PATTERNS: &[&str] = &[
    "The {a} {n} of {p}",
    "How {p} {v} its {n}",
    "Inside the {a} {n} at {p}",
    "A {r} and the {a} {ns}",
    "{ns} and {ns} in {p}",
    "Who {v} the {n} at {p}?",
    "The last {n} of {p}",
    "Why {p} {v} the {a} {n}",
];

/// A headline in the style of the articles' titles (not guaranteed unique).
pub(crate) fn headline(rng: &mut Rng) -> String {
    title_case(&fill(rng.pick(TITLE_PATTERNS), rng))
}

pub(crate) fn articles(count: usize) -> Vec<Article> {
    let mut rng = Rng::new(20_260_101);
    let mut titles = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let mut title = String::new();
        while title.is_empty() || !titles.insert(title.clone()) {
            title = title_case(&fill(rng.pick(TITLE_PATTERNS), &mut rng));
        }
        let author = person(&mut rng);
        let day = 20 + i as i64 * 9 + rng.range(0, 5) as i64;
        let date = crate::date::ymd_string(crate::date::days_from_civil(2025, 1, 1) + day);
        let min_words = rng.range(320, 740) as usize;
        let paragraphs = prose(&mut rng, min_words);
        out.push(Article {
            title,
            author,
            date,
            paragraphs,
        });
    }
    out
}

#[derive(Clone, Debug)]
pub(crate) struct Product {
    pub(crate) name: String,
    pub(crate) description: String,
    pub(crate) price_cents: u64,
    pub(crate) sku: String,
}

const MATERIALS: &[&str] = &[
    "walnut", "oak", "brass", "linen", "ceramic", "steel", "wool", "cork", "glass", "leather",
    "bamboo", "copper", "slate", "felt", "cotton", "ash", "pewter", "rattan", "marble", "canvas",
];

const ITEMS: &[&str] = &[
    "desk lamp",
    "notebook",
    "kettle",
    "chair",
    "backpack",
    "wall clock",
    "cutting board",
    "mug",
    "blanket",
    "pen holder",
    "planter",
    "umbrella",
    "wallet",
    "bookend",
    "candle holder",
    "radio",
    "thermos",
    "toolbox",
    "coat hook",
    "stool",
    "teapot",
    "doormat",
    "lantern",
    "tray",
];

const USES: &[&str] = &[
    "kitchens",
    "studios",
    "offices",
    "narrowboats",
    "gardens",
    "classrooms",
    "workshops",
    "hallways",
    "cabins",
    "libraries",
    "caravans",
    "balconies",
];

const PRODUCT_SENTENCES: &[&str] = &[
    "Designed by {name} in {p}, this {a} {item} {d} pairs {m} with {m2} details.",
    "It weighs {num} grams and measures {num} by {num} centimetres.",
    "Every {item} is {vpp} by hand in {p} and {vpp} twice.",
    "Reviewers {rv} the {m} feels {a} yet {a}.",
    "A {a} finish suits {use} and {use}.",
    "The {item} ships with a {a} {n} and a {num}-day guarantee.",
    "Batch {num} was {vpp} {t}.",
    "Owners in {p} {rv} it outlasted their {a} {n}.",
];

fn fill_product(template: &str, rng: &mut Rng, item: &str, material: &str) -> String {
    let pre = template
        .replace("{item}", item)
        .replace("{m}", material)
        .replace("{m2}", rng.pick(MATERIALS))
        .replacen("{use}", rng.pick(USES), 1)
        .replacen("{use}", rng.pick(USES), 1);
    fill(&pre, rng)
}

/// A product name such as "Quiet Walnut Desk Lamp" (not guaranteed unique).
pub(crate) fn product_name(rng: &mut Rng) -> String {
    let (adjective, material, item) = (rng.pick(ADJECTIVES), rng.pick(MATERIALS), rng.pick(ITEMS));
    title_case(&format!("{adjective} {material} {item}"))
}

pub(crate) fn products(count: usize) -> Vec<Product> {
    let mut rng = Rng::new(60_606_060);
    let mut names = std::collections::HashSet::new();
    let mut out = Vec::with_capacity(count);
    for i in 0..count {
        let (mut item, mut material, mut name) = ("", "", String::new());
        while name.is_empty() || !names.insert(name.clone()) {
            item = rng.pick(ITEMS);
            material = rng.pick(MATERIALS);
            name = title_case(&format!("{} {} {}", rng.pick(ADJECTIVES), material, item));
        }
        let mut sentences = Vec::new();
        let mut order: Vec<usize> = (0..PRODUCT_SENTENCES.len()).collect();
        // Fisher-Yates, so each product uses its own subset and order of sentences.
        for j in (1..order.len()).rev() {
            let k = (rng.next_u64() % (j as u64 + 1)) as usize;
            order.swap(j, k);
        }
        let mut words = 0;
        for idx in order {
            if words >= 36 {
                break;
            }
            let s = fill_product(PRODUCT_SENTENCES[idx], &mut rng, item, material);
            words += word_count(&s);
            sentences.push(s);
        }
        out.push(Product {
            name,
            description: sentences.join(" "),
            price_cents: rng.range(900, 24_900),
            sku: format!("MG-{:04}-{}", i + 1, rng.range(100, 999)),
        });
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pluralize_rules() {
        assert_eq!(pluralize("ferry"), "ferries");
        assert_eq!(pluralize("printing press"), "printing presses");
        assert_eq!(pluralize("bell"), "bells");
        assert_eq!(pluralize("railway"), "railways");
    }

    #[test]
    fn an_before_vowel_and_capitalised() {
        assert_eq!(
            fix_articles("a orchard and a bell"),
            "an orchard and a bell"
        );
        assert_eq!(capitalize("\"we did\""), "\"We did\"");
    }

    #[test]
    fn articles_are_deterministic_and_sized() {
        let a = articles(30);
        let b = articles(30);
        for (x, y) in a.iter().zip(&b) {
            assert_eq!(x.text(), y.text());
            let w = word_count(&x.text());
            assert!((300..=800).contains(&w), "{w} words");
        }
    }

    #[test]
    fn products_have_about_forty_words() {
        for p in products(60) {
            let w = word_count(&p.description);
            assert!((30..=70).contains(&w), "{w} words: {}", p.description);
        }
    }
}
