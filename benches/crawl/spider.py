"""Minimal Scrapy CrawlSpider, the Scrapy peer of benches/crawl/run.

Follows every <a>/<area> link on the seed's host (LinkExtractor defaults: no images, scripts,
archives...), stores nothing, and stops after CLOSESPIDER_PAGECOUNT responses. Settings come from
the command line (-s); -a seed=URL -a stats=FILE give the start URL and where to write the final
crawl stats as JSON (response count, bytes) for the bench script.

    python3 -m scrapy runspider spider.py -a seed=http://127.0.0.1:8080/ -a stats=stats.json \
        -s CLOSESPIDER_PAGECOUNT=5000 -s CONCURRENT_REQUESTS_PER_DOMAIN=64 ...
"""

import json
from urllib.parse import urlsplit

from scrapy import signals
from scrapy.linkextractors import LinkExtractor
from scrapy.spiders import CrawlSpider, Rule


class DocsSpider(CrawlSpider):
    name = "bench"

    def __init__(self, seed, stats="scrapy-stats.json", *args, **kwargs):
        netloc = urlsplit(seed).netloc
        # LinkExtractor compares allow_domains with the URL's netloc, port included.
        DocsSpider.rules = (Rule(LinkExtractor(allow_domains=[netloc]), follow=True),)
        super().__init__(*args, **kwargs)
        self.start_urls = [seed]
        self.stats_path = stats

    @classmethod
    def from_crawler(cls, crawler, *args, **kwargs):
        spider = super().from_crawler(crawler, *args, **kwargs)
        crawler.signals.connect(spider._write_stats, signal=signals.spider_closed)
        return spider

    def _write_stats(self, spider, reason):
        stats = {k: v for k, v in self.crawler.stats.get_stats().items()
                 if isinstance(v, (int, float, str))}
        stats["finish_reason"] = reason
        with open(self.stats_path, "w") as f:
            json.dump(stats, f, indent=1, default=str)
