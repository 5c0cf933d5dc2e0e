package report

import (
	"net/url"
	"path"
	"strings"

	"github.com/swarmsim/swarmsim/rundir"
)

// files groups the manifest's files, and the manifest itself, by the
// folder they are in; the charts' own files are linked beside each chart
// instead, and charts/ lists only its index.
func files(m *rundir.Manifest) []FileGroup {
	var gs []FileGroup
	add := func(folder, f string) {
		if len(gs) == 0 || gs[len(gs)-1].Folder != folder {
			gs = append(gs, FileGroup{Folder: folder})
		}
		g := &gs[len(gs)-1]
		g.Links = append(g.Links, Link{strings.TrimPrefix(f, folder), href(f)})
	}
	add("", rundir.ManifestName)
	// The manifest lists its files sorted, so a folder's files are
	// together; the top level's files come first.
	for _, f := range m.Files {
		if !strings.Contains(f, "/") {
			add("", f)
		}
	}
	for _, f := range m.Files {
		folder, _, ok := strings.Cut(f, "/")
		if !ok || (folder == chartsDir && f != chartIndex) {
			continue
		}
		add(folder+"/", f)
	}
	return gs
}

// href is the relative link to the file f (slash-separated, relative to
// the directory), each segment escaped.
func href(f string) string {
	segs := strings.Split(path.Clean(f), "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return "./" + strings.Join(segs, "/")
}
