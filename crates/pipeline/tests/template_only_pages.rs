//! Pages whose main content is all their host's template: Haddock's modules without exports,
//! whose only main content is the "Safe Haskell / Language" table every module shows, while the
//! module's name sits in the page header. Their compared text is the whole page, so two such
//! modules are two pages, not one.

use crate::common;

use common::{prose, stage};
use dedupcrawl_textprep::View;

/// A module page: its name in the page header, the table every module has, and its
/// documentation (none for a module without exports).
fn module_page(name: &str, documentation: &str) -> String {
    format!(
        "<html lang=\"en\"><head><title>{name}</title></head><body>\
         <header><p>{name}</p></header><main>\
         <table class=\"info\"><tr><th>Safe Haskell</th><td>Trustworthy</td></tr>\
         <tr><th>Language</th><td>Haskell2010</td></tr></table>{documentation}</main>\
         </body></html>"
    )
}

#[test]
fn two_modules_without_exports_are_two_pages() {
    let dir = tempfile::tempdir().unwrap();
    let stage = stage(dir.path(), View::MainContent);
    let check = |name: &str, html: &str| {
        let url = format!("https://hackage.example/base/{name}.html");
        stage
            .check_html(&url, "hackage.example", html.as_bytes(), html)
            .unwrap()
            .decision
    };
    // Modules with exports first: the host learns its template (the table).
    for i in 0..12 {
        let name = format!("Data-Module{i}");
        let documentation = format!("<p>{}</p><p>{}</p>", prose(500 + i, 40), prose(600 + i, 30));
        assert!(check(&name, &module_page(&name, &documentation)).is_new());
    }
    let constants = check("GHC-Constants", &module_page("GHC.Constants", ""));
    assert!(constants.is_new(), "{constants:?}");
    let code_page = check(
        "GHC-IO-Encoding-CodePage",
        &module_page("GHC.IO.Encoding.CodePage", ""),
    );
    assert!(
        code_page.is_new(),
        "a second module without exports, compared on its template alone: {code_page:?}"
    );
}
