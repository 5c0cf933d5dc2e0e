// Package report writes report.html, the one page that shows what a
// complete result directory holds: what was run (from its manifest), its
// summary table with intervals and the best value of each column marked,
// every chart inline as SVG with a caption, the settings in which the
// variants differ, and links to every file. A compare directory's page
// shows the differences with their intervals and the probability of
// improvement.
//
// The page is built from the directory's files alone (manifest.json,
// the summary CSVs, charts/charts.json and the SVG charts beside it),
// so the same code serves the end of every command and 'simulate report
// DIR', which writes it again. It is one self-contained file: it opens
// from the file system with no network and no server, reads well on a
// wide screen and a phone, prints cleanly and follows the reader's light
// or dark theme; a few lines of plain JavaScript sort its tables and say
// when the file was written (the manifest holds no date, so that the same
// scenario and seed give the same files byte for byte).
//
// Units, labels and which way a metric is better come from package
// metric; chart captions from each chart's entry in charts.json. Every
// name the page shows is escaped (html/template), and an SVG is inlined
// only if it holds nothing but drawing: no script, no event handler, no
// link out of the page.
package report
