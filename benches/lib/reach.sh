# Sourced by the bench scripts: the reach of a crawl with dedup's duplicate-links rule against
# one that follows every duplicate's links (what a crawl without dedup reaches).
#
#   source benches/lib/reach.sh
#   reach_report DEDUPCRAWL_BINARY CONFIG SEED WORK_DIR TITLE   # prints Markdown to stdout
#
# Both crawls run to the end (no page limit) with CONFIG and `crawl.url_rules = false` (URL rules
# skip URLs in an order of their own in each crawl; benches/urlrules/run measures them); the
# second sets `duplicate_links_min_share = 0` and `duplicate_links_min_count = 0`. It compares the sets of
# URLs fetched (crawl-log lines with an HTTP status), lists the duplicates whose links the rule
# followed (their links differ from their original's) and every URL only one crawl fetched.
reach_report() {
    local binary=$1 config=$2 seed=$3 work=$4 title=$5
    local python; python=$(python3 -c 'import sys; print(sys.executable)')
    echo "reach ($title): dedupcrawl with the duplicate-links rule, then following every duplicate's links..." >&2
    mkdir -p "$work"
    sed 's/^url_rules = .*$//; s/^\[crawl\]$/[crawl]\nurl_rules = false/' "$config" >"$work/rule.toml"
    sed 's/^\[crawl\]$/[crawl]\nduplicate_links_min_share = 0.0\nduplicate_links_min_count = 0/' \
        "$work/rule.toml" >"$work/every-link.toml"
    rm -rf "$work/reach-rule" "$work/reach-every"
    "$binary" crawl --config "$work/rule.toml" --seed "$seed" --out "$work/reach-rule" \
        --log-level warn --quiet >/dev/null
    "$binary" crawl --config "$work/every-link.toml" --seed "$seed" --out "$work/reach-every" \
        --log-level warn --quiet >/dev/null
    "$python" - "$work/reach-rule/crawl.log.jsonl" "$work/reach-every/crawl.log.jsonl" "$title" "$config" <<'PYTHON'
import json, sys
def fetched(path):
    lines = {}
    for line in open(path):
        entry = json.loads(line)
        if entry.get("status") is not None:
            lines[entry["url"]] = entry
    duplicates = sum(e["decision"] in ("exact_duplicate", "near_duplicate", "contained") for e in lines.values())
    return lines, duplicates
rule_lines, rule_dups = fetched(sys.argv[1])
every_lines, every_dups = fetched(sys.argv[2])
title, config = sys.argv[3], sys.argv[4]
rule, every = set(rule_lines), set(every_lines)
print(f"\n## Reach: the duplicate-links rule against every duplicate's links followed ({title})\n")
print(f"Whole site, {config} with `url_rules = false` in both crawls (URL rules skip in an order of")
print("their own in each crawl: benches/urlrules/run); the second crawl sets `duplicate_links_min_share = 0`")
print("and `duplicate_links_min_count = 0` (every link of every duplicate followed, as without dedup).\n")
print("| crawl | URLs fetched | of them duplicates | fetched only by this crawl |")
print("|---|---|---|---|")
print(f"| duplicate-links rule (default) | {len(rule):,} | {rule_dups:,} | {len(rule - every):,} |")
print(f"| every duplicate's links | {len(every):,} | {every_dups:,} | {len(every - rule):,} |")
followed = sorted((e.get("links_followed") or 0, u) for u, e in rule_lines.items() if e.get("links_followed"))
print(f"\nDuplicates whose links differ from their original's (the rule followed some of their links):")
print(f"{len(followed):,}, {sum(n for n, _ in followed):,} targets followed; the most:\n")
for n, url in sorted(followed, reverse=True)[:10]:
    entry = rule_lines[url]
    print(f"- `{url}` ({entry['decision']} of `{entry.get('duplicate_of')}`): {n} followed")
def listing(urls, lines, heading):
    distinct = [u for u in urls if lines[u]["decision"] == "archived"]
    print(f"\n{heading}: {len(urls)}, of them archived as distinct pages {len(distinct)}")
    print("(first 20; the decision in that crawl, and the page linking it):\n")
    for url in urls[:20]:
        entry = lines[url]
        original = f" of `{entry['duplicate_of']}`" if entry.get("duplicate_of") else ""
        print(f"- `{url}`: {entry['decision']}{original}, linked from `{entry.get('via')}`")
missed, extra = sorted(every - rule), sorted(rule - every)
if missed:
    listing(missed, every_lines, "Fetched only when every duplicate's links are followed")
else:
    print("\nEvery URL the crawl following every duplicate's links fetched, the rule's crawl fetched too:")
    print("the rule loses no page a crawl without dedup reaches.")
if extra:
    # Each crawl decides in its own order (many fetches in flight) and skips what the URL rules
    # it learned say is known: a page can be fetched, or linked, in one crawl only.
    listing(extra, rule_lines, "Fetched only by the rule's crawl")
print()
PYTHON
}
