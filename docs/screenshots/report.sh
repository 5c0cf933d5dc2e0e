#!/usr/bin/env bash
# report.sh: docs/screenshots/report.png, the first screen of the report.html that
# 'simulate train latency-pressure --seeds 3' writes, as headless Chromium
# shows it at 1280 px. The picture is the browser test's own screenshot
# (cmd/simulate TestReports/browser, which also checks the page), not drawn
# by hand.
#
#   docs/screenshots/report.sh      # about a minute; needs Debian's chromium
set -euo pipefail
cd "$(dirname "$0")/../.."
command -v chromium >/dev/null || { echo "report.sh: needs chromium (apt-get install -y chromium)" >&2; exit 1; }
tmp=$(mktemp -d "${TMPDIR:-/tmp}/swarmsim-report.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/simulate" ./cmd/simulate
# In the temporary directory, so that the command the page shows names no
# temporary path.
(cd "$tmp" && ./simulate train latency-pressure --seeds 3 --out latency-pressure >/dev/null)
SWARMSIM_REPORT_DIR="$tmp/latency-pressure" SWARMSIM_REPORT_SHOTS="$tmp/shots" \
	go test ./cmd/simulate -run '^TestReports$/^browser$' -count=1
cp "$tmp/shots/extra-latency-pressure.png" docs/screenshots/report.png
echo "wrote docs/screenshots/report.png ($(wc -c <docs/screenshots/report.png) bytes)"
