"""Fetches a /metrics URL and parses it with prometheus_client's OpenMetrics parser (strict:
a malformed exposition raises). Prints the samples as JSON: a list of
{"family", "type", "name", "labels", "value"}.

usage: openmetrics_to_json.py URL [TOKEN]
"""
import json
import sys
import urllib.request

from prometheus_client.openmetrics.parser import text_string_to_metric_families

url = sys.argv[1]
request = urllib.request.Request(url)
if len(sys.argv) > 2:
    request.add_header("Authorization", "Bearer " + sys.argv[2])
with urllib.request.urlopen(request, timeout=10) as response:
    content_type = response.headers.get("Content-Type", "")
    if not content_type.startswith("application/openmetrics-text"):
        sys.exit("unexpected content type: " + content_type)
    text = response.read().decode("utf-8")
samples = []
for family in text_string_to_metric_families(text):
    for sample in family.samples:
        samples.append({
            "family": family.name,
            "type": family.type,
            "name": sample.name,
            "labels": sample.labels,
            "value": sample.value,
        })
json.dump(samples, sys.stdout)
