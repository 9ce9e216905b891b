//! What a varied page says, before a host's markup style dresses it: the main text (the
//! ground truth's region, between [`MAIN_START`] and [`MAIN_END`] in the served HTML) and
//! the extras a real main column carries around it (share buttons, newsletter box, author
//! bio, related articles with teasers, comments, forms).

/// HTML comments around a page's main text. A crawler never sees comments as text, so they
/// mark the truth's region without telling the dedup anything.
pub const MAIN_START: &str = "<!--vt-main-->";
pub const MAIN_END: &str = "<!--/vt-main-->";

/// A linked teaser: title and a few sentences of the target's text.
#[derive(Clone, Debug)]
pub(crate) struct Teaser {
    pub(crate) href: String,
    pub(crate) title: String,
    pub(crate) text: String,
}

/// One block of the main text.
#[derive(Clone, Debug)]
pub(crate) enum Block {
    /// The page's headline.
    Title(String),
    Subhead(String),
    /// Byline, date, price and SKU: one short line.
    Meta(String),
    Para(String),
    /// An advertisement inside the body.
    Ad(String),
    /// Label/value rows (product specifications).
    Specs(Vec<(String, String)>),
    Teaser(Teaser),
    /// A row of links (pager, index).
    Links(Vec<(String, String)>),
    /// Preformatted code.
    Code(String),
}

/// A reader's comment.
#[derive(Clone, Debug)]
pub(crate) struct Comment {
    pub(crate) name: String,
    pub(crate) date: String,
    pub(crate) text: String,
}

/// Main-column furniture outside the main text.
#[derive(Clone, Debug)]
pub(crate) enum Extra {
    Share,
    /// A newsletter sign-up box with its pitch.
    Newsletter(String),
    AuthorBio {
        name: String,
        bio: String,
    },
    /// "Related articles" / "Trending": a heading and teasers.
    Related {
        heading: String,
        items: Vec<Teaser>,
    },
    /// Comments and a comment form carrying a CSRF token.
    Comments {
        comments: Vec<Comment>,
        token: String,
    },
    /// A line of links (other versions of the page, part navigation).
    Links(Vec<(String, String)>),
}

/// A page of a varied host.
#[derive(Clone, Debug, Default)]
pub(crate) struct Page {
    /// The `<title>` before the host's suffix.
    pub(crate) title: String,
    pub(crate) main: Vec<Block>,
    /// Furniture above the main text (inside the main column).
    pub(crate) before: Vec<Extra>,
    /// Furniture below it.
    pub(crate) after: Vec<Extra>,
}

impl Page {
    pub(crate) fn new(title: &str) -> Page {
        Page {
            title: title.to_string(),
            ..Page::default()
        }
    }

    pub(crate) fn with(mut self, block: Block) -> Page {
        self.main.push(block);
        self
    }

    pub(crate) fn paragraphs(mut self, paragraphs: &[String]) -> Page {
        self.main
            .extend(paragraphs.iter().map(|p| Block::Para(p.clone())));
        self
    }
}
