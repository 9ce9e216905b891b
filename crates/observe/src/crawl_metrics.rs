//! The crawl's Prometheus metrics (OpenMetrics text, which Prometheus scrapes): what is
//! registered, under which names and units, and how an event updates them.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::{Registry, Unit};

use crate::events::{DecisionEvent, FetchEvent, Gauges};

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct HostDecision {
    host: String,
    decision: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct HostMechanism {
    host: String,
    mechanism: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct HostLabel {
    host: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct Figure {
    figure: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
struct HostCode {
    host: String,
    code: u16,
}

/// The metric handles (each shares its value with the registry it was registered in).
#[derive(Clone)]
pub(crate) struct CrawlMetrics {
    pages: Family<HostDecision, Counter>,
    mechanisms: Family<HostMechanism, Counter>,
    fetched_bytes: Family<HostLabel, Counter>,
    saved_bytes: Family<HostLabel, Counter>,
    responses: Family<HostCode, Counter>,
    fetch_errors: Family<HostLabel, Counter>,
    fetch_duration: Histogram,
    page_size: Histogram,
    frontier_queued: Gauge,
    frontier_in_flight: Gauge,
    index_documents: Gauge,
    warc_bytes: Gauge,
    url_rules: Family<Figure, Gauge>,
}

impl CrawlMetrics {
    /// Registers every metric in `registry` (names get the `dedupcrawl_` prefix here; the
    /// library adds the unit and `_total` suffixes).
    pub(crate) fn register(registry: &mut Registry) -> CrawlMetrics {
        let metrics = CrawlMetrics {
            pages: Family::default(),
            mechanisms: Family::default(),
            fetched_bytes: Family::default(),
            saved_bytes: Family::default(),
            responses: Family::default(),
            fetch_errors: Family::default(),
            // 5 ms .. ~41 s
            fetch_duration: Histogram::new(exponential_buckets(0.005, 2.0, 14)),
            // 256 B .. 64 MiB
            page_size: Histogram::new(exponential_buckets(256.0, 4.0, 10)),
            frontier_queued: Gauge::default(),
            frontier_in_flight: Gauge::default(),
            index_documents: Gauge::default(),
            warc_bytes: Gauge::default(),
            url_rules: Family::default(),
        };
        let registry = registry.sub_registry_with_prefix("dedupcrawl");
        registry.register(
            "pages",
            "URL decisions (crawl-log lines) by host and decision; equals report.json",
            metrics.pages.clone(),
        );
        registry.register(
            "mechanism_decisions",
            "URL decisions by host and the mechanism that decided (the crawl log's \
             reason.mechanism); equals report.json's mechanisms",
            metrics.mechanisms.clone(),
        );
        registry.register_with_unit(
            "fetched",
            "Payload bytes of the URL decisions with a response (report.json bytes_fetched)",
            Unit::Bytes,
            metrics.fetched_bytes.clone(),
        );
        registry.register_with_unit(
            "saved",
            "Payload bytes of duplicates, not stored as new content (report.json bytes_saved)",
            Unit::Bytes,
            metrics.saved_bytes.clone(),
        );
        registry.register(
            "http_responses",
            "HTTP responses by host and status code, retried ones included (429, 5xx ...)",
            metrics.responses.clone(),
        );
        registry.register(
            "fetch_errors",
            "Fetches that got no complete response (connection, timeout, body errors), retried ones included",
            metrics.fetch_errors.clone(),
        );
        registry.register_with_unit(
            "fetch_duration",
            "Time from request to the whole body, per fetch",
            Unit::Seconds,
            metrics.fetch_duration.clone(),
        );
        registry.register_with_unit(
            "page_size",
            "Payload size per response",
            Unit::Bytes,
            metrics.page_size.clone(),
        );
        registry.register(
            "frontier_queued_urls",
            "URLs waiting in the frontier",
            metrics.frontier_queued.clone(),
        );
        registry.register(
            "frontier_in_flight_urls",
            "URLs leased and not completed",
            metrics.frontier_in_flight.clone(),
        );
        registry.register(
            "index_documents",
            "Documents in the dedup index",
            metrics.index_documents.clone(),
        );
        registry.register_with_unit(
            "warc",
            "Size of the crawl's WARC files",
            Unit::Bytes,
            metrics.warc_bytes.clone(),
        );
        registry.register(
            "url_rules",
            "URL rules learned from duplicates, by figure (report.json url_rules: learned, \
             active, candidates, vetoed, retractions, applications, verifications, restored, \
             fetches_saved); absent when crawl.url_rules is off",
            metrics.url_rules.clone(),
        );
        metrics
    }

    pub(crate) fn restore(&self, host: &str, counts: &crate::HostCounts) {
        for (decision, count) in counts.by_decision() {
            if count > 0 {
                self.pages
                    .get_or_create(&HostDecision {
                        host: host.to_string(),
                        decision: decision.to_string(),
                    })
                    .inc_by(count);
            }
        }
        for (mechanism, &count) in &counts.mechanisms {
            self.mechanisms
                .get_or_create(&HostMechanism {
                    host: host.to_string(),
                    mechanism: mechanism.clone(),
                })
                .inc_by(count);
        }
        let host = HostLabel {
            host: host.to_string(),
        };
        self.fetched_bytes
            .get_or_create(&host)
            .inc_by(counts.bytes_fetched);
        self.saved_bytes
            .get_or_create(&host)
            .inc_by(counts.bytes_saved);
    }

    pub(crate) fn decision(&self, host: &str, event: &DecisionEvent<'_>) {
        if let Some(mechanism) = event.mechanism {
            self.mechanisms
                .get_or_create(&HostMechanism {
                    host: host.to_string(),
                    mechanism: mechanism.to_string(),
                })
                .inc();
        }
        self.pages
            .get_or_create(&HostDecision {
                host: host.to_string(),
                decision: event.decision.to_string(),
            })
            .inc();
        let bytes = event.bytes.unwrap_or(0);
        let host = HostLabel {
            host: host.to_string(),
        };
        self.fetched_bytes.get_or_create(&host).inc_by(bytes);
        if event.duplicate {
            self.saved_bytes.get_or_create(&host).inc_by(bytes);
        }
    }

    pub(crate) fn fetch(&self, event: &FetchEvent<'_>) {
        self.fetch_duration.observe(event.duration.as_secs_f64());
        match event.response {
            Some((code, bytes)) => {
                self.page_size.observe(bytes as f64);
                self.responses
                    .get_or_create(&HostCode {
                        host: event.host.to_string(),
                        code,
                    })
                    .inc();
            }
            None => {
                self.fetch_errors
                    .get_or_create(&HostLabel {
                        host: event.host.to_string(),
                    })
                    .inc();
            }
        }
    }

    pub(crate) fn gauges(&self, gauges: &Gauges) {
        self.frontier_queued.set(saturating_i64(gauges.queued));
        self.frontier_in_flight
            .set(saturating_i64(gauges.in_flight));
        if let Some(documents) = gauges.index_documents {
            self.index_documents.set(saturating_i64(documents));
        }
        self.warc_bytes.set(saturating_i64(gauges.warc_bytes));
        if let Some(figures) = &gauges.url_rules {
            for (figure, value) in figures.named() {
                self.url_rules
                    .get_or_create(&Figure {
                        figure: figure.to_string(),
                    })
                    .set(saturating_i64(value));
            }
        }
    }
}

fn saturating_i64(value: u64) -> i64 {
    i64::try_from(value).unwrap_or(i64::MAX)
}
